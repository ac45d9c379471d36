// Typed reads of one I-JSON object, each refusal naming the member's JSON path: integers must
// be written as integers (no fraction, no exponent, within ±(2^53 − 1)), sizes and times must
// not be negative, closed sets accept only their values (docs/audit-bundle.md §2.1).

struct IJSONFields {
    let object: IJSONObject
    let path: String

    init(_ value: IJSON, at path: String) throws(AuditBundleError) {
        guard case .object(let o) = value else { throw .malformed(at: path.isEmpty ? "bundle" : path, reason: "not a JSON object") }
        object = o
        self.path = path
    }

    /// Parses `bytes` as one I-JSON object.
    init(parsing bytes: [UInt8], at path: String) throws(AuditBundleError) {
        let v: IJSON
        do { v = try IJSON.parse(bytes, root: path) } catch {
            throw .malformed(at: error.path.isEmpty ? (path.isEmpty ? "bundle" : path) : error.path,
                             reason: "\(error.reason) (byte \(error.offset))")
        }
        try self.init(v, at: path)
    }

    func at(_ name: String) -> String { IJSON.member(path, name) }

    /// nil when absent or null.
    func optional(_ name: String) -> IJSON? {
        guard let v = object[name], v != .null else { return nil }
        return v
    }

    func required(_ name: String) throws(AuditBundleError) -> IJSON {
        guard let v = optional(name) else { throw .malformed(at: at(name), reason: "missing") }
        return v
    }

    func string(_ name: String) throws(AuditBundleError) -> String {
        guard case .string(let s) = try required(name) else { throw .malformed(at: at(name), reason: "not a string") }
        return s
    }

    func optionalString(_ name: String) throws(AuditBundleError) -> String? {
        guard optional(name) != nil else { return nil }
        return try string(name)
    }

    /// An integer ≥ `minimum` (0 unless said: sizes, counts, times and sequence numbers).
    func integer(_ name: String, minimum: Int64 = 0) throws(AuditBundleError) -> Int64 {
        guard case .number(let n) = try required(name) else { throw .malformed(at: at(name), reason: "not a number") }
        guard let v = n.integer else {
            throw .malformed(at: at(name), reason: "\(n.text) is not an integer within ±(2^53−1) (RFC 7493 §2.2)")
        }
        guard v >= minimum else { throw .malformed(at: at(name), reason: "\(v) is below the minimum \(minimum)") }
        return v
    }

    func optionalInteger(_ name: String, minimum: Int64 = 0) throws(AuditBundleError) -> Int64? {
        guard optional(name) != nil else { return nil }
        return try integer(name, minimum: minimum)
    }

    func closed<E: RawRepresentable & CaseIterable>(_ name: String, _: E.Type) throws(AuditBundleError) -> E where E.RawValue == String {
        let s = try string(name)
        guard let e = E(rawValue: s) else {
            let allowed = E.allCases.map { $0.rawValue }.joined(separator: ", ")
            throw .malformed(at: at(name), reason: "unknown value '\(s)' (expected one of \(allowed))")
        }
        return e
    }

    func array(_ name: String) throws(AuditBundleError) -> [IJSON] {
        guard case .array(let a) = try required(name) else { throw .malformed(at: at(name), reason: "not an array") }
        return a
    }

    func fields(_ name: String) throws(AuditBundleError) -> IJSONFields {
        try IJSONFields(try required(name), at: at(name))
    }

    func optionalFields(_ name: String) throws(AuditBundleError) -> IJSONFields? {
        guard optional(name) != nil else { return nil }
        return try fields(name)
    }

    /// Lowercase hex of exactly `bytes` bytes.
    func hex(_ name: String, bytes: Int) throws(AuditBundleError) -> String {
        let s = try string(name)
        guard s.utf8.count == bytes * 2, s.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else {
            throw .malformed(at: at(name), reason: "must be \(bytes * 2) lowercase hex digits")
        }
        return s
    }

    /// Refuses members not in `known` (where a format closes its field set).
    func onlyKnown(_ known: Set<String>) throws(AuditBundleError) {
        if let extra = object.names.first(where: { !known.contains($0) }) {
            throw .malformed(at: at(extra), reason: "unknown field")
        }
    }
}
