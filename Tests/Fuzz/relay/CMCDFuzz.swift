// libFuzzer harness for the collector's CMCD readers (docs/collector.md, "CMCD rules"): event
// mode bodies (one key list per line), JSON bodies and single key lists, built by
// scripts/fuzz-relay.sh.
//
// Properties checked on every input, besides "no crash, no out-of-bounds access":
//  - a refusal is a CMCDError whose report index lies inside the body;
//  - an accepted body has between 1 and CMCDLimits.reportsPerRequest reports, each with its
//    session ID (1 to CMCDLimits.sessionIDLength characters) and a sequence number ≥ 0.

@testable import Audit

@_cdecl("LLVMFuzzerTestOneInput")
public func cmcdFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let lines = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    check(lines) { () throws(CMCDError) in try CMCDParser.parseEventBody(bytes) }
    check(lines) { () throws(CMCDError) in try CMCDParser.parseJSONBody(bytes) }
    do { _ = try CMCDParser.parseKeyList(String(decoding: bytes, as: UTF8.self), event: true) } catch { _ = error.description }
    return 0
}

private func check(_ lines: Int, _ parse: () throws(CMCDError) -> [CMCDReport]) {
    do {
        let reports = try parse()
        guard !reports.isEmpty, reports.count <= CMCDLimits.reportsPerRequest else { fatalError("\(reports.count) reports accepted") }
        for r in reports {
            guard !r.sessionID.isEmpty, r.sessionID.count <= CMCDLimits.sessionIDLength, r.sequence >= 0 else {
                fatalError("a report with sid '\(r.sessionID)' and sn \(r.sequence) accepted")
            }
        }
    } catch {
        switch error {
        case .tooLong(let r, _, _), .syntax(let r, _, _), .missingKey(let r, _), .badValue(let r, _, _):
            guard r >= 0, r <= max(lines, CMCDLimits.reportsPerRequest) else { fatalError("error names report \(r): \(error)") }
        default: break
        }
        _ = error.description
    }
}
