#!/usr/bin/env python3
"""Independent verifier of a WaiHost audit bundle (docs/audit-bundle.md), written from the
spec with json, base64, hashlib and the `cryptography` package only.

usage: verify_bundle.py BUNDLE [OWNER_HEX]
Prints a JSON summary and exits 0 when the bundle verifies; prints the failure and exits 1."""
import base64, binascii, hashlib, json, sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

BINDING = "application/vnd.waihost.audit-binding.v1+json"
RECORD = "application/vnd.waihost.audit-record.v1+json"


class Bad(Exception):
    pass



def _no_duplicates(pairs):
    # docs/audit-bundle.md §2.1 (RFC 7493 §2.3): a member name twice is refused, never "the last wins".
    names = [k for k, _ in pairs]
    if len(set(names)) != len(names):
        raise ValueError("duplicate member name")
    return dict(pairs)


def strict_loads(data):
    if isinstance(data, (bytes, bytearray)):
        data = bytes(data).decode("utf-8")  # UTF-8 only: UTF-16 and invalid bytes raise
    return json.loads(data, object_pairs_hook=_no_duplicates)

def b64(text, where):
    raw = base64.b64decode(text, validate=True)
    if base64.b64encode(raw).decode() != text:
        raise Bad(f"{where}: not canonical base64")
    return raw


def pae(ptype, payload):
    t = ptype.encode()
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)


def envelope(e, where, key_hex=None):
    sigs = e["signatures"]
    if len(sigs) != 1:
        raise Bad(f"{where}: expected one signature")
    keyid, sig = sigs[0]["keyid"], b64(sigs[0]["sig"], where + ".sig")
    if key_hex is not None and keyid != key_hex:
        raise Bad(f"{where}: signed by {keyid}, not {key_hex}")
    payload = b64(e["payload"], where + ".payload")
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(keyid)).verify(sig, pae(e["payloadType"], payload))
    except InvalidSignature:
        raise Bad(f"{where}: signature does not verify")
    return keyid, payload


def verify(data, owner=None):
    if len(data) > 16 << 20:
        raise Bad("bundle too large")
    b = strict_loads(data)
    if set(b) != {"version", "session_id", "owner", "binding", "records"} or b["version"] != 1:
        raise Bad("bundle: bad top level")
    if owner is not None and b["owner"] != owner:
        raise Bad(f"bundle addressed to {b['owner']}, not {owner}")
    if b["binding"]["payloadType"] != BINDING:
        raise Bad("binding: wrong payloadType")
    inst, bp = envelope(b["binding"], "binding")
    binding = strict_loads(bp)
    if binding["installation_key"] != inst or binding["session_id"] != b["session_id"] or binding["owner"] != b["owner"]:
        raise Bad("binding: does not match the bundle")
    session_key = binding["session_key"]
    prev = hashlib.sha256(bp).hexdigest()
    last_type = None
    types = []
    for i, e in enumerate(b["records"]):
        if last_type == "session":
            raise Bad(f"records[{i - 1}]: session record not last")
        if e["payloadType"] != RECORD:
            raise Bad(f"records[{i}]: wrong payloadType")
        _, p = envelope(e, f"records[{i}]", session_key)
        r = strict_loads(p)
        if r["session_id"] != b["session_id"]:
            raise Bad(f"records[{i}]: another session")
        if r["seq"] != i:
            raise Bad(f"records[{i}]: seq {r['seq']}")
        if r["prev"] != prev:
            raise Bad(f"records[{i}]: chain broken")
        bodies = [k for k in ("ack", "ad_claim", "session") if k in r]
        if bodies != [r["type"]]:
            raise Bad(f"records[{i}]: body does not match type")
        prev = hashlib.sha256(p).hexdigest()
        last_type = r["type"]
        types.append(r["type"])
    if last_type != "session":
        raise Bad("no session record at the end")
    return {"session_id": b["session_id"], "owner": b["owner"], "installation_key": inst,
            "session_key": session_key, "types": types,
            "bundle_sha256": hashlib.sha256(data).hexdigest()}


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    try:
        print(json.dumps(verify(data, sys.argv[2] if len(sys.argv) > 2 else None), sort_keys=True))
    except (Bad, KeyError, TypeError, ValueError, binascii.Error) as x:
        print(f"FAIL: {x}")
        sys.exit(1)
