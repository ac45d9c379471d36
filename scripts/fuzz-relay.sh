#!/usr/bin/env bash
# Fuzzes what the relay and the audit read from the network with libFuzzer, one target after
# the other on one core: playlist (the HLS parser and the URI rewrite, docs/relay.md), receipt
# (receipt lines, the verifier and the revision rules, docs/receipts.md), bundle (audit
# bundles as `waihost audit verify` and the collector check them, docs/audit-bundle.md), cmcd
# (the collector's CMCD readers, docs/collector.md) and ed25519 (every signature check's answer
# is OpenSSL's, docs/audit-bundle.md §2.2).
# Usage: scripts/fuzz-relay.sh [SECONDS_PER_TARGET] [TARGET...] (default 60 s, every target).
# Harnesses: Tests/Fuzz/relay/*Fuzz.swift, linked against the instrumented library layers with
# the relay and the audit (scripts/fuzz-lib.sh); the seed corpora are written by
# Tests/Fuzz/relay/CorpusGenerator.swift with the fixed keys of RelayFuzzKeys.swift. A crash
# leaves its input in .build/fuzz-relay/artifacts/ and makes this script fail; reproduce with
# .build/fuzz-relay/TARGET-fuzz ARTIFACT.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz-relay.sh [SECONDS_PER_TARGET] [playlist|receipt|bundle|cmcd|ed25519 ...]" >&2
  exit 2
fi
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(playlist receipt bundle cmcd ed25519)
harness_of() {
  case "$1" in
    playlist) echo Tests/Fuzz/relay/PlaylistFuzz.swift ;;
    receipt)  echo Tests/Fuzz/relay/ReceiptFuzz.swift ;;
    bundle)   echo Tests/Fuzz/relay/BundleFuzz.swift ;;
    cmcd)     echo Tests/Fuzz/relay/CMCDFuzz.swift ;;
    ed25519)  echo Tests/Fuzz/relay/Ed25519Fuzz.swift ;;
    *) echo "unknown fuzz target '$1' (playlist, receipt, bundle, cmcd, ed25519)" >&2; return 1 ;;
  esac
}
for t in "${targets[@]}"; do harness_of "$t" >/dev/null || exit 2; done

out=.build/fuzz-relay
mkdir -p "$out/artifacts"

. scripts/fuzz-lib.sh
# CLazyLibrary by name: building a target compiles the C targets it imports, not the ones
# those import, and the loader behind libcurl, libpq, ... is one of the latter.
fuzz_build_layers Audit CLazyLibrary || exit 1
fuzz_link generator "$out/relay-corpus" Tests/Fuzz/relay/CorpusGenerator.swift Tests/Fuzz/relay/RelayFuzzKeys.swift || exit 1
rm -rf "$out/seeds"
ASAN_OPTIONS=detect_leaks=0 "$out/relay-corpus" "$out/seeds" || { echo "fuzz-relay: the corpus generator failed" >&2; exit 1; }

status=0
for target in "${targets[@]}"; do
  binary="$out/$target-fuzz"
  fuzz_link harness "$binary" "$(harness_of "$target")" Tests/Fuzz/relay/RelayFuzzKeys.swift \
    Tests/Fuzz/Shared/FuzzInput.swift || { status=1; continue; }
  corpus="$out/corpus-$target"
  mkdir -p "$corpus"
  cp "$out/seeds/$target"/* "$corpus/"
  # -detect_leaks=0: the keys and verifiers the harnesses keep for the whole run are reported
  # as leaked at exit; nothing per input is kept.
  fuzz_run "$target" "$binary" "$corpus" "$seconds" "$out" -max_len=16384 -timeout=10 -detect_leaks=0 || status=1
done
exit $status
