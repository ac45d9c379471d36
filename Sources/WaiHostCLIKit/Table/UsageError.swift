/// A command line that does not parse: one line naming what is wrong, then a pointer to the
/// command's help (docs/cli.md, "Conventions"); exit status 2.
public struct UsageError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The command words it happened in (["audit", "verify"]); empty before a command was found.
    public var command: [String]
    public var message: String

    public init(_ message: String, command: [String] = []) {
        self.message = message; self.command = command
    }

    /// "waihost decode: missing option -o OUT".
    public var line: String { (["waihost"] + command).joined(separator: " ") + ": " + message }

    /// "try 'waihost decode --help'".
    public var hint: String { "try '" + (["waihost"] + command + ["--help"]).joined(separator: " ") + "'" }

    public var description: String { line + "\n" + hint }

    /// The same error, said within `command` (for errors thrown by a command's value checks).
    public func within(_ command: [String]) -> UsageError {
        self.command.isEmpty ? UsageError(message, command: command) : self
    }
}
