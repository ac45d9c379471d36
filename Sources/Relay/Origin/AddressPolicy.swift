// SSRF guard (docs/relay.md, "Origin addresses"): a playlist or a redirect must not make the
// relay fetch from loopback or private networks (a router's admin page, a local database's
// HTTP port, the relay itself), unless the origin itself is there. Checked on the address
// libcurl actually connected to, so DNS names that resolve (or rebind) to such an address are
// caught too.

#if canImport(Glibc)
import Glibc
#endif
import Foundation

public struct AddressPolicy: Sendable, Equatable {
    /// "ip port" of the non-public endpoints that may be used: the origin's own.
    public var allowedNonPublic: Set<String>

    public init(allowedNonPublic: Set<String> = []) {
        self.allowedNonPublic = allowedNonPublic
    }

    /// The policy for a session whose entry playlist is `originURL`: the origin host's own
    /// addresses (as it resolves now) at its port are allowed, whatever range they are in.
    public static func forOrigin(_ originURL: String) -> AddressPolicy {
        guard let c = URLComponents(string: originURL), var host = c.host else { return AddressPolicy() }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = c.port ?? (c.scheme?.lowercased() == "https" ? 443 : 80)
        var allowed: Set<String> = []
        for ip in resolve(host) where !isPublic(ip) { allowed.insert("\(ip) \(port)") }
        return AddressPolicy(allowedNonPublic: allowed)
    }

    public func allows(ip: String, port: Int) -> Bool {
        isPublic(ip) ? true : allowedNonPublic.contains("\(Self.canonical(ip) ?? ip) \(port)")
    }

    private func isPublic(_ ip: String) -> Bool { Self.isPublic(ip) }

    /// False for loopback, private (RFC 1918, RFC 4193), link-local, CGNAT, unspecified,
    /// multicast, reserved and IPv4-mapped forms of those; also for text that is no address.
    public static func isPublic(_ ip: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, ip, &v4) == 1 { return isPublicV4(UInt32(bigEndian: v4.s_addr)) }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, ip, &v6) == 1 else { return false }
        let b = withUnsafeBytes(of: v6) { Array($0) }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff {
            return isPublicV4(UInt32(b[12]) << 24 | UInt32(b[13]) << 16 | UInt32(b[14]) << 8 | UInt32(b[15]))
        }
        if b[0..<15].allSatisfy({ $0 == 0 }) { return false }           // :: and ::1
        if b[0] & 0xfe == 0xfc { return false }                          // fc00::/7 unique local
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return false }          // fe80::/10 link-local
        if b[0] == 0xff { return false }                                 // multicast
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b { // 64:ff9b::/96 NAT64
            return isPublicV4(UInt32(b[12]) << 24 | UInt32(b[13]) << 16 | UInt32(b[14]) << 8 | UInt32(b[15]))
        }
        return true
    }

    private static func isPublicV4(_ a: UInt32) -> Bool {
        let blocked: [(UInt32, Int)] = [
            (0x0000_0000, 8), (0x0A00_0000, 8), (0x6440_0000, 10), (0x7F00_0000, 8), (0xA9FE_0000, 16),
            (0xAC10_0000, 12), (0xC000_0000, 24), (0xC0A8_0000, 16), (0xC612_0000, 15), (0xE000_0000, 4),
            (0xF000_0000, 4),
        ]
        return !blocked.contains { net, bits in a >> (32 - bits) == net >> (32 - bits) }
    }

    /// The address in inet_ntop's spelling, so "::FFFF:7f00:1" and "::ffff:127.0.0.1" match.
    static func canonical(_ ip: String) -> String? {
        var v4 = in_addr()
        if inet_pton(AF_INET, ip, &v4) == 1 { return ip }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, ip, &v6) == 1 else { return nil }
        var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &v6, &buf, socklen_t(buf.count)) != nil else { return nil }
        return String(cString: buf)
    }

    private static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var res: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &res) == 0 else { return [] }
        defer { freeaddrinfo(res) }
        var out: [String] = []
        var p = res
        while let ai = p {
            var buf = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(ai.pointee.ai_addr, ai.pointee.ai_addrlen, &buf, socklen_t(buf.count), nil, 0, NI_NUMERICHOST) == 0 {
                let s = String(cString: buf)
                out.append(canonical(s) ?? s)
            }
            p = ai.pointee.ai_next
        }
        return out
    }
}
