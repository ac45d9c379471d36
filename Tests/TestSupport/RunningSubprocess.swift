// A started Subprocess: a thread of its own drains the pipes (and feeds stdin) and reaps
// the child; callers read lines, signal it and wait, never longer than its deadline.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

public final class RunningSubprocess: @unchecked Sendable {
    public let pid: pid_t
    public let command: String
    private let limit: Double
    private let deadline: Date
    private let state: DrainState

    init(_ s: Subprocess) throws {
        IgnoreSIGPIPE.once
        command = s.commandLine
        limit = s.deadline
        deadline = Date().addingTimeInterval(s.deadline)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = []     // stdin's write end, stdout's and stderr's read ends
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        func makePipe() throws -> (read: Int32, write: Int32) {
            // pipe2 is not in Glibc's Swift overlay: close-on-exec is set at once after, so
            // that only the ends dup2'ed into place reach the child.
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0, fcntl(fds[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(fds[1], F_SETFD, FD_CLOEXEC) == 0 else {
                let e = errno
                parentEnds.forEach { close($0) }
                throw SubprocessError(command: s.commandLine, reason: .pipe(errno: e), stdout: [], stderr: [])
            }
            return (fds[0], fds[1])
        }

        var stdinBytes: [UInt8] = []
        var stdinFD: Int32 = -1
        switch s.input {
        case .none:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .bytes(let b):
            let p = try makePipe()
            posix_spawn_file_actions_adddup2(&actions, p.read, 0)
            childEnds.append(p.read)
            parentEnds.append(p.write)
            stdinFD = p.write
            stdinBytes = b
        }
        var outFD: Int32 = -1, errFD: Int32 = -1
        switch s.output {
        case .capture:
            let o = try makePipe(), e = try makePipe()
            posix_spawn_file_actions_adddup2(&actions, o.write, 1)
            posix_spawn_file_actions_adddup2(&actions, e.write, 2)
            childEnds += [o.write, e.write]
            parentEnds += [o.read, e.read]
            outFD = o.read
            errFD = e.read
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .discard:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }

        // Nothing else of this process reaches the child: not the sockets and pipes of a
        // server the test runs, nor another child's pipe (which would never see its end).
        CloseFrom.add(&actions, 3)

        // Its own process group, so a deadline kills what it started too; this process
        // ignores SIGPIPE, the child gets the default back.
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attr, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attr, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attr, &mask)

        var argv = ([s.executable] + s.arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var envp = s.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let rc = s.executable.contains("/")
            ? posix_spawn(&child, s.executable, &actions, &attr, &argv, &envp)
            : posix_spawnp(&child, s.executable, &actions, &attr, &argv, &envp)
        guard rc == 0 else {
            parentEnds.forEach { close($0) }
            throw SubprocessError(command: s.commandLine, reason: .launch(errno: rc), stdout: [], stderr: [])
        }
        pid = child
        state = DrainState(pid: child, stdin: stdinFD, stdinBytes: stdinBytes, stdout: outFD, stderr: errFD)
        let drain = Thread { [state] in state.run() }
        drain.name = "subprocess \(child)"
        drain.start()
    }

    deinit {
        // A test that stopped caring (it threw, or left a producer running): the group goes.
        if state.termination == nil { killpg(pid, SIGKILL) }
    }

    /// Not yet reaped.
    public var isRunning: Bool { state.termination == nil }

    /// Sends `signal` to the child itself (not its group), unless it has been reaped.
    public func signal(_ signal: Int32) { state.signal(signal) }

    /// The next line of its stdout without the newline; nil once stdout has ended.
    public func readLine() throws -> String? {
        switch state.nextLine(until: deadline) {
        case .line(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .end: return nil
        case .timedOut: throw killed()
        }
    }

    /// Waits for the end: both streams closed and the child reaped.
    public func wait() throws -> SubprocessResult {
        guard let t = state.finished(until: deadline) else { throw killed() }
        let (o, e) = state.output
        return SubprocessResult(command: command, termination: t, stdout: o, stderr: e)
    }

    private func killed() -> SubprocessError {
        killpg(pid, SIGKILL)
        _ = state.finished(until: Date().addingTimeInterval(10))
        let (o, e) = state.output
        return SubprocessError(command: command, reason: .deadline(seconds: limit), stdout: o, stderr: e)
    }
}

/// What the drain thread and the callers share, under one condition.
private final class DrainState: @unchecked Sendable {
    enum Line { case line([UInt8]), end, timedOut }

    private let pid: pid_t
    private let cond = NSCondition()
    private var stdinFD: Int32
    private var stdinBytes: ArraySlice<UInt8>
    private var stdoutFD: Int32
    private var stderrFD: Int32
    private var out: [UInt8] = []
    private var err: [UInt8] = []
    private var consumed = 0
    private var outEnded = false
    private var reaped: Termination?

    init(pid: pid_t, stdin: Int32, stdinBytes: [UInt8], stdout: Int32, stderr: Int32) {
        self.pid = pid
        stdinFD = stdin
        self.stdinBytes = stdinBytes[...]
        stdoutFD = stdout
        stderrFD = stderr
        outEnded = stdout < 0
        if stdin >= 0 { _ = fcntl(stdin, F_SETFL, fcntl(stdin, F_GETFL) | O_NONBLOCK) }
    }

    var termination: Termination? { cond.lock(); defer { cond.unlock() }; return reaped }
    var output: ([UInt8], [UInt8]) { cond.lock(); defer { cond.unlock() }; return (out, err) }

    func signal(_ sig: Int32) {
        cond.lock(); defer { cond.unlock() }
        if reaped == nil { kill(pid, sig) }
    }

    /// The drain thread: pipes until each ends, then the child's exit status.
    func run() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while stdinFD >= 0 || stdoutFD >= 0 || stderrFD >= 0 {
            var fds: [pollfd] = []
            if stdinFD >= 0 { fds.append(pollfd(fd: stdinFD, events: Int16(POLLOUT), revents: 0)) }
            if stdoutFD >= 0 { fds.append(pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)) }
            if stderrFD >= 0 { fds.append(pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)) }
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            for p in fds where p.revents != 0 {
                if p.fd == stdinFD { feedStdin() } else { read(p.fd, &buffer) }
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        cond.lock()
        reaped = Termination(waitStatus: status)
        cond.broadcast()
        cond.unlock()
    }

    private func feedStdin() {
        while !stdinBytes.isEmpty {
            let n = stdinBytes.withUnsafeBytes { Glibc.write(stdinFD, $0.baseAddress, $0.count) }
            if n > 0 { stdinBytes = stdinBytes.dropFirst(n); continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN { return }
            break   // EPIPE: the child stopped reading; what it did not read is its business.
        }
        close(stdinFD)
        stdinFD = -1
    }

    private func read(_ fd: Int32, _ buffer: inout [UInt8]) {
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { return }
        cond.lock()
        defer { cond.broadcast(); cond.unlock() }
        if n > 0 {
            if fd == stdoutFD { out += buffer[0..<n] } else { err += buffer[0..<n] }
            return
        }
        close(fd)
        if fd == stdoutFD { stdoutFD = -1; outEnded = true } else { stderrFD = -1 }
    }

    func nextLine(until deadline: Date) -> Line {
        cond.lock(); defer { cond.unlock() }
        while true {
            if let nl = out[consumed...].firstIndex(of: 0x0A) {
                let line = Array(out[consumed..<nl])
                consumed = nl + 1
                return .line(line)
            }
            if outEnded {
                guard consumed < out.count else { return .end }
                let line = Array(out[consumed...])
                consumed = out.count
                return .line(line)
            }
            if !cond.wait(until: deadline) && Date() >= deadline { return .timedOut }
        }
    }

    func finished(until deadline: Date) -> Termination? {
        cond.lock(); defer { cond.unlock() }
        while reaped == nil {
            if !cond.wait(until: deadline) && Date() >= deadline { return reaped }
        }
        return reaped
    }
}

/// A write to a pipe whose reader died must fail with EPIPE, not kill the test process.
private enum IgnoreSIGPIPE {
    static let once: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()
}

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34) is not in the Glibc overlay, so it
/// is looked up at run time; without it each descriptor open now is closed one by one.
private enum CloseFrom {
    private typealias Fn = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let fn: Fn? = {
        guard let handle = dlopen(nil, RTLD_NOW), let sym = dlsym(handle, "posix_spawn_file_actions_addclosefrom_np") else {
            return nil
        }
        return unsafeBitCast(sym, to: Fn.self)
    }()

    static func add(_ actions: inout posix_spawn_file_actions_t, _ from: Int32) {
        if let fn, fn(&actions, from) == 0 { return }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd >= from {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }
}
