// Every way a bundle can fail, each naming the record, signature or chain link at fault.

public enum AuditBundleError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLarge(what: String, size: Int, limit: Int)
    /// `at` is a JSON path: "records[3].payload", "binding.signatures[0].sig".
    case malformed(at: String, reason: String)
    case unsupportedVersion(Int)
    /// The binding's signature does not verify under the installation key it names.
    case bindingSignature(installationKey: String)
    /// A top-level field disagrees with the signed binding.
    case bindingMismatch(field: String, bundle: String, binding: String)
    case untrustedInstallationKey(String)
    case wrongOwner(expected: String, got: String)
    /// Record `index` is signed by a key other than the bound session key.
    case unboundRecordKey(index: Int, keyID: String, sessionKey: String)
    /// Record `index`'s signature does not verify under the bound session key.
    case recordSignature(index: Int)
    case recordPayloadType(index: Int, got: String)
    /// Record `index` was signed for another session (replayed).
    case recordSession(index: Int, expected: String, got: String)
    /// Record `index` carries the wrong sequence number (dropped, reordered or replayed).
    case sequence(index: Int, expected: Int64, got: Int64)
    /// Record `index`'s `prev` is not the hash of the record before it.
    case chain(index: Int, expected: String, got: String)
    case bodyMismatch(index: Int, type: String)
    case sessionRecordNotLast(index: Int)
    case sessionRecordMissing

    public var description: String {
        switch self {
        case .tooLarge(let w, let s, let l): return "\(w): \(s) exceeds the limit of \(l)"
        case .malformed(let at, let r): return "\(at): \(r)"
        case .unsupportedVersion(let v): return "version \(v) is not supported (expected 1)"
        case .bindingSignature(let k): return "binding: signature does not verify under installation key \(k)"
        case .bindingMismatch(let f, let b, let s): return "binding: \(f) is \(s) in the signed binding but \(b) in the bundle"
        case .untrustedInstallationKey(let k): return "binding: installation key \(k) is not one of the trusted keys"
        case .wrongOwner(let e, let g): return "bundle is addressed to owner \(g), not \(e)"
        case .unboundRecordKey(let i, let k, let s): return "records[\(i)]: signed by \(k), not by the bound session key \(s)"
        case .recordSignature(let i): return "records[\(i)]: signature does not verify under the session key"
        case .recordPayloadType(let i, let t): return "records[\(i)]: payloadType \(t) is not \(AuditPayloadType.record)"
        case .recordSession(let i, let e, let g): return "records[\(i)]: belongs to session \(g), not \(e) (replayed)"
        case .sequence(let i, let e, let g): return "records[\(i)]: sequence number \(g), expected \(e) (a record dropped, reordered or replayed)"
        case .chain(let i, let e, let g): return "records[\(i)]: chain broken: prev is \(g), expected \(e)"
        case .bodyMismatch(let i, let t): return "records[\(i)]: type \(t) without exactly its one body"
        case .sessionRecordNotLast(let i): return "records[\(i)]: session record is not the last record"
        case .sessionRecordMissing: return "no session record at the end (bundle truncated)"
        }
    }
}
