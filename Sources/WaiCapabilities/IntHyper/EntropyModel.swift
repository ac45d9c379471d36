/// `entropy.json` of an int_hyper model set (docs/capabilities/int_hyper.md §2.2): the
/// factorized prior of z (one table per z channel) and the Gaussian-conditional tables of y
/// (one per scale index). All integers; validated on load, every error naming the JSON path.
public struct IntHyperEntropyModel: Equatable, Sendable {
    public static let fileName = "entropy.json"
    public static let formatVersion = 1
    public static let maximumFileSize = 64 << 20
    public static let maximumTableCount = 65536

    /// Frequencies of every table sum to 2^precision.
    public let precision: Int
    /// Table of z channel c.
    public let zTables: [FrequencyTable]
    /// Table of scale index i (h_s's output).
    public let yTables: [FrequencyTable]
    /// The same tables flattened for the version-2 lane decoder (docs/entropy-coding.md §8.4).
    public let zTableSet: RansTableSet
    public let yTableSet: RansTableSet

    public init(precision: Int, zTables: [FrequencyTable], yTables: [FrequencyTable]) throws {
        let file = Self.fileName
        guard (1...FrequencyTable.maximumPrecision).contains(precision) else {
            throw ModelSetError(file: file, location: "$.precision", problem: "\(precision) is outside 1…16")
        }
        for (key, tables) in [("z_tables", zTables), ("y_tables", yTables)] {
            guard (1...Self.maximumTableCount).contains(tables.count) else {
                throw ModelSetError(file: file, location: "$.\(key)",
                                    problem: "\(tables.count) tables; 1…\(Self.maximumTableCount) allowed")
            }
            if let k = tables.firstIndex(where: { $0.precision != precision }) {
                throw ModelSetError(file: file, location: "$.\(key)[\(k)]",
                                    problem: "table precision \(tables[k].precision) differs from $.precision = \(precision)")
            }
        }
        self.precision = precision; self.zTables = zTables; self.yTables = yTables
        zTableSet = RansTableSet(zTables)
        yTableSet = RansTableSet(yTables)
    }

    private struct File: Decodable {
        var format_version: Int
        var precision: Int
        var z_tables: [Table]
        var y_tables: [Table]
    }

    private struct Table: Decodable {
        var offset: Int
        var escape: Int
        var cdf: [Int]
    }

    public static func parse(_ bytes: [UInt8], file: String = fileName) throws -> IntHyperEntropyModel {
        let f = try JSONFile.decode(File.self, bytes, file: file)
        guard f.format_version == formatVersion else {
            throw ModelSetError(file: file, location: "$.format_version",
                                problem: "version \(f.format_version) is not supported (this host reads \(formatVersion))")
        }
        guard (1...FrequencyTable.maximumPrecision).contains(f.precision) else {
            throw ModelSetError(file: file, location: "$.precision", problem: "\(f.precision) is outside 1…16")
        }
        func tables(_ list: [Table], _ key: String) throws -> [FrequencyTable] {
            guard (1...maximumTableCount).contains(list.count) else {
                throw ModelSetError(file: file, location: "$.\(key)",
                                    problem: "\(list.count) tables; 1…\(maximumTableCount) allowed")
            }
            return try list.enumerated().map { k, t in
                let at = "$.\(key)[\(k)]"
                guard let offset = Int32(exactly: t.offset) else {
                    throw ModelSetError(file: file, location: at + ".offset", problem: "\(t.offset) is outside int32")
                }
                do {
                    return try FrequencyTable(precision: f.precision, cdf: t.cdf, escapeSymbol: t.escape, offset: offset)
                } catch let e as FrequencyTableError {
                    throw ModelSetError(file: file, location: at, problem: "\(e) (docs/entropy-coding.md §1)")
                }
            }
        }
        return try IntHyperEntropyModel(precision: f.precision, zTables: try tables(f.z_tables, "z_tables"),
                                        yTables: try tables(f.y_tables, "y_tables"))
    }

    /// The file's bytes as the generator writes them: fixed key order, one table per line.
    public func serialized() -> [UInt8] {
        func table(_ t: FrequencyTable) -> String {
            "    {\"offset\": \(t.offset), \"escape\": \(t.escapeSymbol), \"cdf\": ["
                + t.cdf.map { String($0) }.joined(separator: ", ") + "]}"
        }
        let text = """
            {
              "format": "wai.neural.int_hyper entropy model",
              "format_version": \(Self.formatVersion),
              "precision": \(precision),
              "z_tables": [
            \(zTables.map(table).joined(separator: ",\n"))
              ],
              "y_tables": [
            \(yTables.map(table).joined(separator: ",\n"))
              ]
            }

            """
        return Array(text.utf8)
    }
}
