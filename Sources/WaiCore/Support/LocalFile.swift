// Whole-file reads and writes for the capability code (pictures, payloads, model-set files).
// Plain POSIX calls, so the library needs no Foundation for its files; every failure names
// the path and the system's reason.
#if canImport(Glibc)
import Glibc
#endif

public struct FileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var problem: String
    public init(path: String, problem: String) { self.path = path; self.problem = problem }
    public var description: String { "\(path): \(problem)" }
}

/// Used by the library's capability code and by the CLI.
public enum LocalFile {
    /// The whole file; refuses one larger than `limit` before reading it.
    public static func read(_ path: String, limit: Int) throws -> [UInt8] {
        func failure(_ what: String) -> FileError {
            FileError(path: path, problem: "cannot \(what): \(String(cString: strerror(errno)))")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw failure("stat") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw FileError(path: path, problem: "not a regular file") }
        let size = Int(st.st_size)
        guard size <= limit else {
            throw FileError(path: path, problem: "\(size) bytes, larger than the limit of \(limit) bytes")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.read(fd, base + done, size - done)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("read")
            }
            if n == 0 { break }
            done += n
        }
        return done == size ? bytes : Array(bytes[0..<done])
    }

    /// Standard input to its end, refusing more than `limit` bytes.
    public static func readStandardInput(limit: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError(path: "-", problem: "cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
            guard bytes.count <= limit else {
                throw FileError(path: "-", problem: "standard input is larger than the limit of \(limit) bytes")
            }
        }
    }

    /// Writes through a temporary file in the same folder and renames it over `path`, so a
    /// reader never sees half a file and a failed write leaves the old file alone.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        try write(to: path) { fd in
            if let error = writeAll(fd, bytes) { throw FileError(path: path, problem: "cannot write: \(error)") }
        }
    }

    /// `body` writes the file's content to the descriptor it is given; the file appears at
    /// `path` only once `body` returned (a temporary file renamed into place), else not at all.
    public static func write(to path: String, _ body: (Int32) throws -> Void) throws {
        let tmp = "\(path).tmp.\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw FileError(path: path, problem: "cannot create \(tmp): \(String(cString: strerror(errno)))")
        }
        do { try body(fd) } catch {
            close(fd)
            unlink(tmp)
            throw error
        }
        close(fd)
        guard rename(tmp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(tmp)
            throw FileError(path: path, problem: "cannot rename \(tmp) into place: \(reason)")
        }
    }

    /// Whether `write(to: path)` can create its file, asked before long work (a decode, an
    /// encode) so that a mistyped output path fails at once rather than after it: `path` is
    /// not a folder, and its folder exists, is a folder and takes new files from this user.
    /// Only a pre-flight: the write itself still reports what goes wrong then.
    public static func checkWritable(_ path: String) throws {
        if isDirectory(path) { throw FileError(path: path, problem: "is a folder; give a file name") }
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var st = stat()
        guard stat(folder, &st) == 0 else {
            throw FileError(path: path, problem: "cannot write: folder \(folder): \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { throw FileError(path: path, problem: "cannot write: \(folder) is not a folder") }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw FileError(path: path, problem: "cannot write in folder \(folder): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes to standard output (for `-o -`).
    public static func writeStandardOutput(_ bytes: [UInt8]) throws {
        if let error = writeAll(1, bytes) {
            throw FileError(path: "-", problem: "cannot write standard output: \(error)")
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            var offset = 0
            while offset < raw.count {
                guard let base = raw.baseAddress else { return nil }
                let n = Glibc.write(fd, base + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += n
            }
            return nil
        }
    }

    public static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates `path` and its missing parents.
    public static func makeDirectories(_ path: String) throws {
        if isDirectory(path) { return }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if !isDirectory(prefix), mkdir(prefix, 0o755) != 0, errno != EEXIST {
                throw FileError(path: path, problem: "cannot create folder \(prefix): \(String(cString: strerror(errno)))")
            }
            prefix += "/"
        }
    }
}
