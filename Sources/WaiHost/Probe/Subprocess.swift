#if canImport(Glibc)
import Glibc
#endif

/// One run of a child process with a time limit: what it wrote and how it ended. Used for
/// probe workers, so a plugin that crashes or hangs takes only its worker down.
struct Subprocess {
    enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)
        case timedOut
        /// posix_spawn itself failed (missing or non-executable prober).
        case spawnFailed(String)
    }

    struct Outcome {
        var termination: Termination
        var stdout: [UInt8]
        var stderr: [UInt8]
    }

    /// Runs `executable` with `arguments` (argv[1...]) and the current environment.
    /// `onStderrLine` sees each complete stderr line as it arrives (stage progress).
    /// On timeout the child's whole process group is killed with SIGKILL.
    static func run(executable: String, arguments: [String], timeout: Double,
                    onStderrLine: ((String) -> Void)? = nil) -> Outcome {
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        // pipe2 is not visible through Glibc, so pipes get FD_CLOEXEC by fcntl; the lock
        // keeps another thread's spawn from inheriting a pipe end in between.
        let spawned: Result<(pid: pid_t, out: Int32, err: Int32), SpawnFailure> = spawnLock.withLock {
            var outPipe: [Int32] = [-1, -1]
            var errPipe: [Int32] = [-1, -1]
            guard makePipe(&outPipe) else { return .failure(SpawnFailure(text: "pipe: \(errnoText())")) }
            guard makePipe(&errPipe) else {
                close(outPipe[0]); close(outPipe[1])
                return .failure(SpawnFailure(text: "pipe: \(errnoText())"))
            }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)

            var attr = posix_spawnattr_t()
            posix_spawnattr_init(&attr)
            defer { posix_spawnattr_destroy(&attr) }
            // Own process group, so a timeout kills whatever the plugin started too; default
            // signal handling, so a crash is reported as the signal that caused it.
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for s in [SIGPIPE, SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE] { sigaddset(&defaults, s) }
            var noneBlocked = sigset_t()
            sigemptyset(&noneBlocked)
            posix_spawnattr_setsigdefault(&attr, &defaults)
            posix_spawnattr_setsigmask(&attr, &noneBlocked)
            posix_spawnattr_setpgroup(&attr, 0)
            posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

            var pid: pid_t = 0
            let rc = argv.withUnsafeBufferPointer { a in
                posix_spawn(&pid, executable, &actions, &attr, UnsafeMutablePointer(mutating: a.baseAddress!), environ)
            }
            close(outPipe[1]); close(errPipe[1])
            guard rc == 0 else {
                close(outPipe[0]); close(errPipe[0])
                return .failure(SpawnFailure(text: "\(executable): \(String(cString: strerror(rc)))"))
            }
            return .success((pid, outPipe[0], errPipe[0]))
        }
        let pid: pid_t, outFD: Int32, errFD: Int32
        switch spawned {
        case .failure(let f): return Outcome(termination: .spawnFailed(f.text), stdout: [], stderr: [])
        case .success(let s): (pid, outFD, errFD) = s
        }

        var stdoutBytes: [UInt8] = []
        var stderrBytes: [UInt8] = []
        var pendingLine: [UInt8] = []
        let deadline = monotonicSeconds() + timeout
        var open: [Int32] = [outFD, errFD]
        var timedOut = false
        var chunk = [UInt8](repeating: 0, count: 65536)

        while !open.isEmpty {
            let remaining = deadline - monotonicSeconds()
            if remaining <= 0 { timedOut = true; break }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining * 1000, 1000).rounded(.up)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            for f in fds where f.revents != 0 {
                let n = chunk.withUnsafeMutableBytes { read(f.fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    close(f.fd)
                    open.removeAll { $0 == f.fd }
                    continue
                }
                let data = chunk[0..<n]
                if f.fd == outFD {
                    stdoutBytes.append(contentsOf: data)
                } else {
                    stderrBytes.append(contentsOf: data)
                    for byte in data {
                        if byte == UInt8(ascii: "\n") {
                            onStderrLine?(String(decoding: pendingLine, as: UTF8.self))
                            pendingLine.removeAll(keepingCapacity: true)
                        } else {
                            pendingLine.append(byte)
                        }
                    }
                }
            }
        }

        var status: Int32 = 0
        if !timedOut {
            // Output closed; the child may still linger (a hang after closing stdout).
            while true {
                let r = waitpid(pid, &status, WNOHANG)
                if r == pid { break }
                if r < 0 && errno != EINTR { break }
                if monotonicSeconds() >= deadline { timedOut = true; break }
                usleep(1000)
            }
        }
        if timedOut {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            for fd in open { close(fd) }
            return Outcome(termination: .timedOut, stdout: stdoutBytes, stderr: stderrBytes)
        }
        if !pendingLine.isEmpty { onStderrLine?(String(decoding: pendingLine, as: UTF8.self)) }
        let termination: Termination
        if status & 0x7f == 0 {
            termination = .exited((status >> 8) & 0xff)
        } else {
            termination = .signaled(status & 0x7f)
        }
        return Outcome(termination: termination, stdout: stdoutBytes, stderr: stderrBytes)
    }

    private static let spawnLock = PluginLock()
    private struct SpawnFailure: Error { var text: String }

    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// "SIGSEGV" for 11, and so on; the number alone for anything unusual.
    static func signalName(_ s: Int32) -> String {
        let names: [Int32: String] = [SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGABRT: "SIGABRT",
                                      SIGILL: "SIGILL", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL",
                                      SIGTERM: "SIGTERM", SIGPIPE: "SIGPIPE", SIGTRAP: "SIGTRAP",
                                      SIGSYS: "SIGSYS", SIGINT: "SIGINT"]
        return names[s] ?? "signal \(s)"
    }
}

