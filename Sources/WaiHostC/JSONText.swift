import WaiSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON the C API hands out: the same key-sorted, pretty form as the CLI's `--json`.
enum JSONText {
    static func of<T: Encodable>(_ value: T) throws -> String {
        try JSONCoding.text(value)
    }
}
