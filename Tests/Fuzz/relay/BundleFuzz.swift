// libFuzzer harness for audit bundles (docs/audit-bundle.md): the strict reader, every check
// of AuditBundle.verify (what `waihost audit verify` and the collector run on what they
// receive), built by scripts/fuzz-relay.sh.
//
// Each input is checked twice, besides "no crash, no out-of-bounds access":
//  - as received: a refusal is an AuditBundleError; an accepted bundle parses again from its
//    own encoding and verifies again to the same binding, records and session record;
//  - signed again: when it parses, its binding is signed again by the fixed installation key
//    and each record by the fixed session key, so the fuzzer's changes to the signed payloads
//    (binding fields, record sequence, chain, bodies) reach the checks behind the signatures.

@testable import WaiCrypto
@testable import Audit

@_cdecl("LLVMFuzzerTestOneInput")
public func bundleFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    check(bytes)
    if let bundle = try? AuditBundle.parse(bytes), let again = resigned(bundle) { check(again) }
    return 0
}

private func check(_ bytes: [UInt8]) {
    let verified: VerifiedBundle
    do {
        verified = try AuditBundle.verify(bytes)
    } catch {
        _ = error.description
        return
    }
    var reencoded: VerifiedBundle
    do {
        reencoded = try AuditBundle.parse(bytes).verify()
    } catch {
        fatalError("an accepted bundle does not verify from its own encoding: \(error)")
    }
    // Only the hash of the bytes may differ (another spelling of the same JSON).
    reencoded.bundleSha256 = verified.bundleSha256
    guard reencoded == verified else { fatalError("an accepted bundle reads differently from its own encoding") }
}

private func resigned(_ bundle: AuditBundle) -> [UInt8]? {
    do {
        var b = bundle
        b.binding = try Envelope.sign(type: bundle.binding.payloadType, payload: bundle.binding.payload, key: RelayFuzzKeys.installation)
        b.records = try bundle.records.map { try Envelope.sign(type: $0.payloadType, payload: $0.payload, key: RelayFuzzKeys.session) }
        return b.encoded()
    } catch {
        return nil
    }
}
