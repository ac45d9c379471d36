// The tests' HTTP clients: `TestHTTP`, raw HTTP/1.1 over a socket (the bytes sent are exactly
// the bytes meant: bad lengths, odd targets, IPv6 loopback), and `Curl`, a real client
// (the curl tool) for URLs as a player meets them.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

public struct HTTPReply: Sendable {
    public var status: Int
    public var body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }
}

public enum TestHTTP {
    /// One request on a fresh connection (`Connection: close`); reads the reply to EOF.
    /// `ipv6`: to [::1] instead of 127.0.0.1.
    public static func send(port: UInt16, method: String, target: String, contentType: String? = nil,
                     body: [UInt8] = [], declaredLength: Int? = nil, ipv6: Bool = false) throws -> HTTPReply {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var tv = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let host = ipv6 ? "[::1]:\(port)" : "127.0.0.1:\(port)"
        let rc: Int32
        if ipv6 {
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_port = port.bigEndian
            addr.sin6_addr = in6addr_loopback
            rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = port.bigEndian
            addr.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard rc == 0 else { throw TestFailure(description: "connect \(host): errno \(errno)") }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        if let t = contentType { head += "Content-Type: \(t)\r\n" }
        if method == "POST" || !body.isEmpty { head += "Content-Length: \(declaredLength ?? body.count)\r\n" }
        head += "\r\n"
        try writeAll(fd, Array(head.utf8) + body)
        if declaredLength != nil { shutdown(fd, Int32(SHUT_WR)) }
        var reply: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            guard n > 0 else {
                if errno == EINTR { continue }
                if errno == ECONNRESET, !reply.isEmpty { break }
                throw TestFailure(description: "recv: errno \(errno)")
            }
            reply.append(contentsOf: buf[0..<n])
        }
        return try parse(reply)
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            // The server may answer (413) and close before it read everything: read the reply.
            guard n > 0 else { return }
            off += n
        }
    }

    private static func parse(_ reply: [UInt8]) throws -> HTTPReply {
        let sep: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, reply.count - 3)).first(where: { Array(reply[$0..<$0 + 4]) == sep }) else {
            throw TestFailure(description: "reply without a header end (\(reply.count) bytes)")
        }
        let head = String(decoding: reply[0..<end], as: UTF8.self)
        let parts = head.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw TestFailure(description: "bad status line: \(head.prefix(80))") }
        let body = Array(reply[(end + 4)...])
        // A reply cut short (the server killed mid-send) is no reply: its body is not trusted.
        let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        if let l = lengthLine, let n = Int(l.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)), body.count < n {
            throw TestFailure(description: "reply body cut at \(body.count) of \(n) bytes")
        }
        return HTTPReply(status: status, body: body)
    }
}

/// One HTTP exchange made with the curl command-line tool.
public struct Fetched: Sendable {
    public let status: Int
    public let headers: [String: String]
    public let body: [UInt8]
    public func header(_ n: String) -> String? { headers[n.lowercased()] }
}

public enum Curl {
    /// `curl -sS` without following redirects; the status is -1 when curl got no reply.
    public static func request(_ url: String, method: String = "GET", headers: [String] = []) throws -> Fetched {
        let dir = try TempDir("curl")
        var args = ["-sS", "-D", dir.path + "/h", "-o", dir.path + "/b", "-w", "%{http_code}"]
        // With -I curl writes the headers to -o as well; callers of HEAD look at headers only.
        if method == "HEAD" { args.append("-I") } else { args += ["-X", method] }
        for h in headers { args += ["-H", h] }
        args.append(url)
        let r = try Subprocess("/usr/bin/curl", args, deadline: 60).run()
        var hs: [String: String] = [:]
        let headerText = (try? String(contentsOfFile: dir.path + "/h", encoding: .utf8)) ?? ""
        for line in headerText.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" }) {
            guard let c = line.firstIndex(of: ":") else { continue }
            hs[line[..<c].lowercased()] = line[line.index(after: c)...].trimmingCharacters(in: .whitespaces)
        }
        let body = FileManager.default.contents(atPath: dir.path + "/b").map { [UInt8]($0) } ?? []
        return Fetched(status: Int(r.stdoutText) ?? -1, headers: hs, body: body)
    }
}
