// Why a playlist was refused. Every case names the 1-based line (0 = the file as a whole).

public struct PlaylistError: Error, Equatable, Sendable, CustomStringConvertible {
    public let line: Int
    public let reason: String

    public init(line: Int, _ reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { line > 0 ? "playlist line \(line): \(reason)" : "playlist: \(reason)" }
}
