#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum JSON {
    /// Pretty, key-sorted JSON text of a value.
    static func text<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
