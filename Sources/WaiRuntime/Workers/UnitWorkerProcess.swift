import Dispatch
import WorkerIPC
#if canImport(Glibc)
import Glibc
#endif

/// One running unit worker (`waihost-unit-worker`) and its private channels. The worker is
/// spawned with a fixed argv and environment, stdin from /dev/null, its own process group,
/// and the control channel on fd 3; every further channel is a socket pair whose far end is
/// passed over the control channel, and the worker serves each on a thread of its own, so
/// distinct prepared graphs run concurrently (docs/backend-abi.md §8).
///
/// The first request that finds the worker dead, hung or lying ends it for every request:
/// the whole process group is killed, the worker reaped, and the same `WorkerDeath`
/// answers all of them from then on.
final class UnitWorkerProcess: @unchecked Sendable {
    let pid: pid_t
    let log: WorkerLog
    private let control: Int32
    private let controlLock = Mutex()
    private let lock = Mutex()
    private var idle: [Int32] = []
    private var open = 0
    private var death: WorkerDeath?
    private var nextTag: UInt32 = 1
    /// Enough for every prepared graph of a unit at once; a caller beyond waits for a channel.
    private let maxChannels = 16
    /// Signalled when a channel is returned or the worker ends; waiters re-check.
    private let channelFree = DispatchSemaphore(value: 0)
    /// Signalled once the death record is final (log read, status known).
    private var deathFinal = false

    private init(pid: pid_t, control: Int32, log: WorkerLog) {
        self.pid = pid; self.control = control; self.log = log
    }

    deinit {
        for fd in idle { close(fd) }
        close(control)
        if death == nil {
            // Closing the control channel tells the worker to exit; it is reaped here so no
            // zombie is left, and killed if it does not go.
            reap(graceSeconds: 2)
        }
    }

    static func spawn(executable: String) throws -> UnitWorkerProcess {
        var sockets: [Int32] = [-1, -1]
        var pipe: [Int32] = [-1, -1]
        let s = sockets.withUnsafeMutableBufferPointer { wipc_socketpair($0.baseAddress!) }
        guard s == 0 else { throw WorkerError.spawnFailed(executable: executable, reason: "socketpair: \(errorText(s))") }
        let p = pipe.withUnsafeMutableBufferPointer { wipc_pipe($0.baseAddress!) }
        guard p == 0 else {
            close(sockets[0]); close(sockets[1])
            throw WorkerError.spawnFailed(executable: executable, reason: "pipe: \(errorText(p))")
        }
        // Close-on-exec everywhere, so no other worker inherits these ends; posix_spawn's
        // dup2 clears the flag on the child's fds 1, 2 and 3 only.
        let pid = wipc_spawn(executable, sockets[1], pipe[1])
        close(sockets[1]); close(pipe[1])
        guard pid > 0 else {
            close(sockets[0]); close(pipe[0])
            throw WorkerError.spawnFailed(executable: executable, reason: errorText(Int32(pid)))
        }
        return UnitWorkerProcess(pid: pid, control: sockets[0], log: WorkerLog(fd: pipe[0]))
    }

    var isAlive: Bool { lock.withLock { death == nil } }
    var deathRecord: WorkerDeath? { lock.withLock { deathFinal ? death : nil } }

    /// One request on the control channel (loading, listing, opening channels).
    func controlRequest(_ kind: WorkerWire.Kind, body: [UInt8], fd: Int32 = -1, timeout: Double,
                        what: String) throws -> [UInt8] {
        try controlLock.withLock { try exchange(control, kind, body: body, fd: fd, timeout: timeout, what: what) }
    }

    /// One request on a channel of its own: waits for an idle channel or opens one.
    func request(_ kind: WorkerWire.Kind, body: [UInt8], fd: Int32 = -1, timeout: Double,
                 what: String) throws -> [UInt8] {
        let channel = try acquireChannel(timeout: timeout, what: what)
        do {
            let reply = try exchange(channel, kind, body: body, fd: fd, timeout: timeout, what: what)
            releaseChannel(channel)
            return reply
        } catch {
            // A channel whose exchange failed may hold half a message: never reused.
            close(channel)
            lock.withLock { open -= 1 }
            channelFree.signal()
            throw error
        }
    }

    private func acquireChannel(timeout: Double, what: String) throws -> Int32 {
        while true {
            let decision: Int32? = try lock.withLock {
                if let d = death { throw WorkerError.died(d) }
                if let fd = idle.popLast() { return fd }
                if open < maxChannels { open += 1; return -1 }
                return nil
            }
            switch decision {
            case .some(let fd) where fd >= 0:
                return fd
            case .some:
                var pair: [Int32] = [-1, -1]
                let rc = pair.withUnsafeMutableBufferPointer { wipc_socketpair($0.baseAddress!) }
                guard rc == 0 else {
                    lock.withLock { open -= 1 }
                    throw WorkerError.refused("cannot open a channel to the unit worker: \(Self.errorText(rc))")
                }
                do {
                    _ = try controlRequest(.openChannel, body: [], fd: pair[1], timeout: timeout,
                                           what: "opening a channel for \(what)")
                } catch {
                    close(pair[0]); close(pair[1])
                    lock.withLock { open -= 1 }
                    throw error
                }
                close(pair[1])
                return pair[0]
            case .none:
                _ = channelFree.wait(timeout: .now() + 0.05)
            }
        }
    }

    private func releaseChannel(_ fd: Int32) {
        lock.withLock { idle.append(fd) }
        channelFree.signal()
    }

    /// Sends a request and waits for its reply until the deadline. Anything but a
    /// well-formed reply with the request's tag ends the worker.
    private func exchange(_ sock: Int32, _ kind: WorkerWire.Kind, body: [UInt8], fd: Int32, timeout: Double,
                          what: String) throws -> [UInt8] {
        let tag: UInt32 = try lock.withLock {
            if let d = death { throw WorkerError.died(d) }
            nextTag &+= 1
            return nextTag
        }
        let deadline = monotonicSeconds() + timeout
        let sent = WorkerWire.send(sock, kind: kind, tag: tag, body: body, fd: fd)
        guard sent == 0 else { throw WorkerError.died(end(.exited(-1), what: what, probe: true)) }
        let header: [UInt8]
        switch receive(sock, WorkerWire.headerSize, deadline: deadline) {
        case .success(let h): header = h
        case .failure(let f): throw WorkerError.died(end(f, what: what, timeout: timeout))
        }
        guard let h = WorkerWire.Header(header) else {
            throw WorkerError.died(end(.garbage("not a message header"), what: what, timeout: timeout))
        }
        guard h.tag == tag else {
            throw WorkerError.died(end(.garbage("reply tag \(h.tag), request tag \(tag)"), what: what, timeout: timeout))
        }
        guard h.length <= WorkerWire.maxReplyBody else {
            throw WorkerError.died(end(.garbage("reply of \(h.length) bytes"), what: what, timeout: timeout))
        }
        let replyBody: [UInt8]
        switch receive(sock, Int(h.length), deadline: deadline) {
        case .success(let b): replyBody = b
        case .failure(let f): throw WorkerError.died(end(f, what: what, timeout: timeout))
        }
        switch WorkerWire.Kind(rawValue: h.kind) {
        case .ok?:
            return replyBody
        case .error?:
            var r = ByteReader(replyBody, source: "unit worker reply", end: replyBody.count)
            guard let message = try? r.wireString("message") else {
                throw WorkerError.died(end(.garbage("unreadable error reply"), what: what, timeout: timeout))
            }
            if r.remaining > 0 {
                guard (try? r.u8("call failed")) == 1, let pluginPath = try? r.wireString("path"),
                      let call = try? r.wireString("call"),
                      let status = try? r.wireString("status"), let pluginMessage = try? r.wireString("plugin message"),
                      r.remaining == 0 else {
                    throw WorkerError.died(end(.garbage("unreadable error reply"), what: what, timeout: timeout))
                }
                throw PluginError.callFailed(path: pluginPath, call: call, status: status, message: pluginMessage)
            }
            throw WorkerError.refused(message)
        default:
            throw WorkerError.died(end(.garbage("reply kind \(h.kind)"), what: what, timeout: timeout))
        }
    }

    enum ReceiveFailure: Error { case closed, timedOut, garbage(String) }

    private func receive(_ sock: Int32, _ count: Int, deadline: Double) -> Result<[UInt8], ReceiveFailure> {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let remaining = deadline - monotonicSeconds()
            if remaining <= 0 { return .failure(.timedOut) }
            var p = pollfd(fd: sock, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(min(remaining * 1000, 1000).rounded(.up)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            var passed: Int32 = -1
            let n = bytes.withUnsafeMutableBytes { wipc_recv(sock, $0.baseAddress! + got, count - got, &passed) }
            // The worker never sends descriptors: one that arrives is closed unread.
            if passed >= 0 { close(passed) }
            if n == 0 { return .failure(.closed) }
            if n < 0 { return .failure(.closed) }
            got += n
        }
        return .success(bytes)
    }

    private func end(_ failure: ReceiveFailure, what: String, timeout: Double) -> WorkerDeath {
        switch failure {
        case .timedOut: return end(.timedOut(seconds: timeout), what: what, probe: false)
        case .closed: return end(.exited(-1), what: what, probe: true)
        case .garbage(let g): return end(.protocolViolation(g), what: what, probe: false)
        }
    }

    /// Records the first death and kills and reaps the worker. `probe`: the worker closed
    /// its end, so how it ended (signal, status) is read from waitpid instead of `cause`.
    private func end(_ cause: WorkerDeath.Cause, what: String, probe: Bool) -> WorkerDeath {
        let first: Bool = lock.withLock {
            if death != nil { return false }
            // Claimed before the slow part, so concurrent requests wait for one verdict.
            death = WorkerDeath(cause: cause, request: what, log: [])
            return true
        }
        if !first { return finalDeath() }
        let status = reap(graceSeconds: probe ? 2 : 0)
        var final = cause
        if probe, let status {
            final = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        }
        log.waitForEnd(seconds: 1)
        let record = WorkerDeath(cause: final, request: what, log: log.lastLines())
        lock.withLock { death = record; deathFinal = true }
        channelFree.signal()
        return record
    }

    /// The death another request is recording, once it is complete (bounded wait).
    private func finalDeath() -> WorkerDeath {
        let deadline = monotonicSeconds() + 5
        while true {
            let (d, done) = lock.withLock { (death, deathFinal) }
            if done || monotonicSeconds() > deadline, let d { return d }
            usleep(2000)
        }
    }

    /// Waits up to `graceSeconds` for the worker to end by itself, then kills its process
    /// group; returns the wait status.
    @discardableResult
    private func reap(graceSeconds: Double) -> Int32? {
        var status: Int32 = 0
        let deadline = monotonicSeconds() + graceSeconds
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { kill(-pid, SIGKILL); return status }
            if r < 0 && errno != EINTR { return nil }
            if monotonicSeconds() >= deadline { break }
            usleep(2000)
        }
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return nil }
        }
        return status
    }

    /// Kills the worker on purpose (the host is done with it, or its plugin changed).
    func terminate(reason: String) {
        _ = end(.exited(0), what: reason, probe: false)
    }

    static func errorText(_ negativeErrno: Int32) -> String { String(cString: strerror(-negativeErrno)) }
}
