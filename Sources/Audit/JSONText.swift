// The one JSON spelling the audit writes: keys sorted, no whitespace, integers only, "/" not
// escaped. Signatures never depend on it (DSSE carries payload bytes), but a fixed spelling
// makes bundles reproducible and their SHA-256 stable across writers.

import WaiSupport
import Foundation

enum JSONText {
    static func encode(_ object: Any) -> [UInt8] {
        // Every value the audit builds is a valid JSON object; failure here is a programming error.
        guard let d = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            preconditionFailure("audit: value is not representable as JSON")
        }
        return [UInt8](d)
    }

    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        guard let d = try? JSONCoding.encoder(pretty: false).encode(value) else { preconditionFailure("audit: value is not representable as JSON") }
        return [UInt8](d)
    }
}
