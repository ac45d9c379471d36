// Reading the model set's JSON files with Foundation's decoder, turning its errors into
// ModelSetErrors that name the file and the JSON path.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum JSONFile {
    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], file: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw describe(error, file: file)
        } catch {
            throw ModelSetError(file: file, problem: "not valid JSON: \(error)")
        }
    }

    /// `$.a.b[3]` from a coding path.
    static func path(_ keys: [CodingKey]) -> String {
        keys.reduce("$") { p, k in k.intValue.map { "\(p)[\($0)]" } ?? "\(p).\(k.stringValue)" }
    }

    static func describe(_ error: DecodingError, file: String) -> ModelSetError {
        switch error {
        case let .keyNotFound(key, context):
            return ModelSetError(file: file, location: path(context.codingPath),
                                 problem: "required key \"\(key.stringValue)\" is missing")
        case let .typeMismatch(type, context):
            return ModelSetError(file: file, location: path(context.codingPath),
                                 problem: "expected \(typeName(type)): \(context.debugDescription)")
        case let .valueNotFound(type, context):
            return ModelSetError(file: file, location: path(context.codingPath),
                                 problem: "expected \(typeName(type)), found null")
        case let .dataCorrupted(context):
            let problem = context.codingPath.isEmpty ? "not valid JSON: \(context.debugDescription)" : context.debugDescription
            return ModelSetError(file: file, location: context.codingPath.isEmpty ? nil : path(context.codingPath),
                                 problem: problem)
        @unknown default:
            return ModelSetError(file: file, problem: "\(error)")
        }
    }

    private static func typeName(_ t: Any.Type) -> String {
        switch t {
        case is Int.Type, is Int32.Type, is Int64.Type: return "an integer"
        case is String.Type: return "a string"
        case is [Int].Type: return "an array of integers"
        default: return "\(t)"
        }
    }

    /// A JSON string literal (the generator writes its files by hand, byte for byte).
    static func quoted(_ s: String) -> String { JSONCoding.quoted(s) }

    /// A model set's manifest.json as the generators write it (int_hyper.md §2.1,
    /// video_int_motion.md §2.1): fixed key order, `extraLines` (each "\n  \"key\": value,")
    /// between version and files, the files in `names` order.
    static func manifest(capability: String, formatVersion: Int, name: String, version: String, extraLines: String,
                         names: [String], files: [String: String]) -> [UInt8] {
        let list = names.map { "    \(quoted($0)): \(quoted(files[$0] ?? ""))" }.joined(separator: ",\n")
        let text = """
            {
              "capability": \(quoted(capability)),
              "format_version": \(formatVersion),
              "name": \(quoted(name)),
              "version": \(quoted(version)),\(extraLines)
              "files": {
            \(list)
              }
            }

            """
        return Array(text.utf8)
    }
}
