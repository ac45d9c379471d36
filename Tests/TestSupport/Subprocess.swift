// The one way the tests run a program: posix_spawn into a process group of its own, both
// output pipes drained at once (a chatty child never blocks on a full pipe), and a deadline
// after which the whole group is killed and the test fails naming the command.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program to run, with what it reads and where its output goes.
public struct Subprocess: Sendable {
    public enum Input: Sendable {
        /// /dev/null.
        case none
        /// These bytes, then end of file.
        case bytes([UInt8])
    }

    public enum Output: Sendable {
        /// Both streams captured, separately.
        case capture
        /// Both streams appended to this file: for a program that leaves a server running
        /// with its output (a pipe would stay open as long as the server does).
        case file(String)
        /// Both streams to /dev/null.
        case discard
    }

    public var executable: String
    public var arguments: [String]
    /// The child's whole environment.
    public var environment: [String: String]
    public var input: Input
    public var output: Output
    /// Seconds from the start; past it the child's process group is killed.
    public var deadline: Double

    /// `environment`: changes to this process's environment (nil removes a variable).
    /// `executable`: a path, or a name looked up in PATH.
    public init(_ executable: String, _ arguments: [String] = [], environment changes: [String: String?] = [:],
                input: Input = .none, output: Output = .capture, deadline: Double = 600) {
        self.executable = executable
        self.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in changes { env[k] = v }
        self.environment = env
        self.input = input
        self.output = output
        self.deadline = deadline
    }

    /// `environment`: variables set for the child on top of this process's environment.
    public init(_ executable: String, _ arguments: [String] = [], environment changes: [String: String],
                input: Input = .none, output: Output = .capture, deadline: Double = 600) {
        self.init(executable, arguments, environment: changes.mapValues { Optional($0) }, input: input, output: output,
                  deadline: deadline)
    }

    /// The command as a shell would read it, for messages.
    public var commandLine: String {
        ([executable] + arguments).map { word in
            word.isEmpty || word.contains(where: { " \t\n'\"\\$`*?;&|<>()".contains($0) })
                ? "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" : word
        }.joined(separator: " ")
    }

    /// Runs to the end (or the deadline).
    public func run() throws -> SubprocessResult { try start().wait() }

    /// Starts the program; its output is drained from now on, whether or not anyone waits.
    public func start() throws -> RunningSubprocess { try RunningSubprocess(self) }

    /// An executable found in PATH, or nil.
    public static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// How a child ended.
public enum Termination: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signalled(Int32)

    init(waitStatus s: Int32) {
        self = (s & 0x7f) == 0 ? .exited((s >> 8) & 0xff) : .signalled(s & 0x7f)
    }

    public var description: String {
        switch self {
        case .exited(let code): return "exit status \(code)"
        case .signalled(let sig): return "killed by signal \(sig)"
        }
    }
}

public struct SubprocessResult: Sendable {
    public let command: String
    public let termination: Termination
    public let stdout: [UInt8]
    public let stderr: [UInt8]

    /// The exit status, or 128 + the signal number, as a shell reports it.
    public var status: Int32 {
        switch termination {
        case .exited(let code): return code
        case .signalled(let sig): return 128 + sig
        }
    }

    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// Why a program did not give a result; always names the command.
public struct SubprocessError: Error, CustomStringConvertible {
    public enum Reason: Sendable {
        case launch(errno: Int32)
        case pipe(errno: Int32)
        case deadline(seconds: Double)
    }

    public let command: String
    public let reason: Reason
    /// What it wrote before it was killed.
    public let stdout: [UInt8]
    public let stderr: [UInt8]

    public var description: String {
        switch reason {
        case .launch(let e): return "\(command): cannot start: \(String(cString: strerror(e)))"
        case .pipe(let e): return "\(command): cannot make its pipes: \(String(cString: strerror(e)))"
        case .deadline(let s):
            let tail = String(decoding: stderr.suffix(2000), as: UTF8.self)
            return "\(command): still running after its deadline of \(s) s; its process group was killed"
                + (tail.isEmpty ? "" : "; stderr so far:\n\(tail)")
        }
    }
}
