#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// The tail of a worker's stdout and stderr (one pipe), read by a thread of its own so a
/// chatty plugin never blocks on a full pipe and never grows the host's memory: only the
/// last `capacity` bytes are kept.
final class WorkerLog: @unchecked Sendable {
    private let lock = Mutex()
    private var tail: [UInt8] = []
    private let capacity = 64 << 10
    private let finished = DispatchSemaphore(value: 0)
    private let fd: Int32

    /// Takes ownership of `fd`, the read end of the log pipe.
    init(fd: Int32) {
        self.fd = fd
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let log = Unmanaged<WorkerLog>.fromOpaque(raw!).takeRetainedValue()
            log.drain()
            return nil
        }, box)
        if rc == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<WorkerLog>.fromOpaque(box).release()
            close(fd)
            finished.signal()
        }
    }

    private func drain() {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            lock.withLock {
                tail.append(contentsOf: chunk[0..<n])
                if tail.count > capacity { tail.removeFirst(tail.count - capacity) }
            }
        }
        close(fd)
        finished.signal()
    }

    /// Waits (bounded) until every writer closed the pipe, so the lines a dying worker
    /// wrote are all here.
    func waitForEnd(seconds: Double) {
        if finished.wait(timeout: .now() + seconds) == .success { finished.signal() }
    }

    /// The lines worth quoting in a failure reason: the last `count` non-empty lines; when
    /// the worker died of a signal, the plugin's last lines before it, the signal line and
    /// the first frames of the backtrace. Each line is cut to 240 characters.
    func lastLines(_ count: Int = 12) -> [String] {
        let bytes = lock.withLock { tail }
        let lines = bytes.split(separator: UInt8(ascii: "\n")).map {
            String(decoding: $0.prefix(240), as: UTF8.self).trimmingTrailingWhitespace()
        }.filter { !$0.isEmpty }
        guard let fatal = lines.lastIndex(where: { $0.hasPrefix(Self.fatalPrefix) }) else {
            return Array(lines.suffix(count))
        }
        let before = lines[..<fatal].suffix(4)
        let frames = lines[(fatal + 1)...].prefix(max(count - before.count - 1, 2))
        return Array(before) + [lines[fatal]] + Array(frames)
    }

    /// What the worker's fatal-signal handler writes first (Sources/WorkerIPC).
    static let fatalPrefix = "waihost-unit-worker: fatal signal"

    /// Everything kept (tests, diagnostics).
    var text: String { String(decoding: lock.withLock { tail }, as: UTF8.self) }
}

extension String {
    func trimmingTrailingWhitespace() -> String {
        var s = Substring(self)
        while let last = s.last, last.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
