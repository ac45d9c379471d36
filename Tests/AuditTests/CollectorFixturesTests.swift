// Shared by the collector tests: a throwaway PostgreSQL cluster and bundles (the raw HTTP
// client is TestSupport's TestHTTP).
import Foundation
import TestSupport
import XCTest
@testable import Audit
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

extension TestHTTP {
    static func postBundle(port: UInt16, _ bytes: [UInt8], ipv6: Bool = false) throws -> HTTPReply {
        try send(port: port, method: "POST", target: "/v1/sessions", contentType: "application/json", body: bytes, ipv6: ipv6)
    }
}

/// A PostgreSQL cluster of its own in a temporary folder, on a free port; stopped on deinit.
/// As root (CI) the server runs as the `postgres` user: PostgreSQL refuses to run as root.
final class TestPostgres {
    let folder: TempDir
    let port: UInt16
    let uri: String
    private let asUser: [String]
    private static let bin = "/usr/lib/postgresql/15/bin"

    init() throws {
        folder = try TempDir()
        asUser = getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups"] : []
        if getuid() == 0 {
            guard chown(folder.path, Self.postgresUID(), gid_t(UInt32.max)) == 0 else {
                throw TestFailure(description: "chown \(folder.path) to postgres: errno \(errno) (is the postgres user there? scripts/install-deps.sh)")
            }
        }
        port = try Self.freePort()
        uri = "postgres://waihost@127.0.0.1:\(port)/postgres"
        try run([Self.bin + "/initdb", "-D", folder.path + "/data", "-U", "waihost", "-A", "trust", "--no-sync"], what: "initdb")
        try start()
    }

    func start() throws {
        try run([Self.bin + "/pg_ctl", "-D", folder.path + "/data", "-w", "-t", "60", "-l", folder.path + "/log",
                 "-o", "-p \(port) -k \(folder.path) -h 127.0.0.1 -c fsync=on -c synchronous_commit=on", "start"], what: "pg_ctl start")
    }

    /// As a crash would: every connection dropped, nothing shut down cleanly.
    func stop() throws {
        try run([Self.bin + "/pg_ctl", "-D", folder.path + "/data", "-m", "immediate", "-w", "stop"], what: "pg_ctl stop")
    }

    deinit {
        try? run([Self.bin + "/pg_ctl", "-D", folder.path + "/data", "-m", "immediate", "-w", "stop"], what: "pg_ctl stop")
    }

    private static func postgresUID() -> uid_t {
        getpwnam("postgres")?.pointee.pw_uid ?? uid_t(UInt32.max)
    }

    private func run(_ argv: [String], what: String) throws {
        let full = asUser + argv
        guard FileManager.default.isExecutableFile(atPath: full[0]) else {
            throw TestFailure(description: "\(what): \(full[0]) not found; install postgresql (scripts/install-deps.sh)")
        }
        // A file, not a pipe: the server pg_ctl starts inherits it and would hold a pipe open.
        let outPath = folder.path + "/\(what.replacingOccurrences(of: " ", with: "-")).out"
        let status = try Subprocess(full[0], Array(full.dropFirst()), output: .file(outPath), deadline: 300).run().status
        let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let log = (try? String(contentsOfFile: folder.path + "/log", encoding: .utf8)) ?? ""
            throw TestFailure(description: "\(what) failed (status \(status)): \(text)\(log)")
        }
    }

    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { throw TestFailure(description: "no free port: errno \(errno)") }
        return UInt16(bigEndian: addr.sin_port)
    }
}

enum CollectorFixture {
    /// A fresh session's bundle bytes (three acks and the session record), for the owner.
    static func bundle(sessionId: String = AuditChain.newSessionId(), acks: Int = 3,
                       owner: Ed25519PublicKey = Fixture.owner.publicKey) throws -> [UInt8] {
        var c = try AuditChain(installationKey: Fixture.installation, owner: owner, sessionId: sessionId)
        for i in 0..<acks { try c.append(.ack(Fixture.ack(i))) }
        try c.append(.session(Fixture.summary))
        return c.bundle.encoded()
    }

    static func submission(sessionID: String = AuditChain.newSessionId(), bytes: [UInt8]? = nil) -> BundleSubmission {
        let b = bytes ?? Array("bundle \(sessionID)".utf8)
        return BundleSubmission(sessionID: sessionID, lastSequence: 1, digest: SHA256.digest(b), bytes: b,
                                records: [StoredRecord(type: "ack", sequence: 0, fields: "{\"n\":0}"),
                                          StoredRecord(type: "session", sequence: 1, fields: "{\"n\":1}")],
                                acknowledgement: Array("ack of \(sessionID) \(b.count)".utf8), receivedAt: 1_764_000_000_000)
    }
}

/// The store contract, run against each implementation.
enum StoreContract {
    static func check(_ store: CollectorStore, file: StaticString = #filePath, line: UInt = #line) throws {
        let a = CollectorFixture.submission()
        XCTAssertEqual(try store.insertBundle(a), .stored(acknowledgement: a.acknowledgement), file: file, line: line)
        // The same bytes again: accepted once, answered with the acknowledgement stored the first time.
        var again = a
        again.acknowledgement = Array("a newer acknowledgement".utf8)
        XCTAssertEqual(try store.insertBundle(again), .duplicate(acknowledgement: a.acknowledgement), file: file, line: line)
        // Other bytes for the same session: a conflict naming what is stored.
        let other = CollectorFixture.submission(sessionID: a.sessionID, bytes: Array("other bytes".utf8))
        XCTAssertEqual(try store.insertBundle(other), .conflict(existingDigest: a.digest), file: file, line: line)

        let got = try store.bundle(sessionID: a.sessionID)
        XCTAssertEqual(got?.bytes, a.bytes, file: file, line: line)
        XCTAssertEqual(got?.digest, a.digest, file: file, line: line)
        XCTAssertEqual(got?.lastSequence, 1, file: file, line: line)
        XCTAssertEqual(got?.receivedAt, a.receivedAt, file: file, line: line)
        XCTAssertEqual(try store.records(sessionID: a.sessionID), a.records, file: file, line: line)
        XCTAssertEqual(try store.allBundles().map { $0.sessionID }, [a.sessionID], file: file, line: line)
        XCTAssertNil(try store.bundle(sessionID: "absent"), file: file, line: line)

        // Binary bytes survive exactly (every byte value, a NUL included).
        let binary = CollectorFixture.submission(bytes: (0...255).map { UInt8($0) })
        XCTAssertEqual(try store.insertBundle(binary), .stored(acknowledgement: binary.acknowledgement), file: file, line: line)
        XCTAssertEqual(try store.bundle(sessionID: binary.sessionID)?.bytes, binary.bytes, file: file, line: line)

        // Record texts that need quoting in any batch or array form survive exactly, and a
        // bundle with no records is still one stored bundle.
        var awkward = CollectorFixture.submission()
        awkward.records = [StoredRecord(type: "ack", sequence: 0, fields: #"{"uri":"a\"b\\c","x":"{,}","n":null}"#),
                           StoredRecord(type: "session", sequence: 1, fields: "NULL \u{e9}\u{1F600} \\")]
        XCTAssertEqual(try store.insertBundle(awkward), .stored(acknowledgement: awkward.acknowledgement), file: file, line: line)
        XCTAssertEqual(try store.records(sessionID: awkward.sessionID), awkward.records, file: file, line: line)
        var empty = CollectorFixture.submission()
        empty.records = []
        XCTAssertEqual(try store.insertBundle(empty), .stored(acknowledgement: empty.acknowledgement), file: file, line: line)
        XCTAssertEqual(try store.insertBundle(empty), .duplicate(acknowledgement: empty.acknowledgement), file: file, line: line)
        XCTAssertEqual(try store.records(sessionID: empty.sessionID), [], file: file, line: line)

        let r1 = CMCDReport(sessionID: "s", sequence: 1, body: "sid=\"s\",sn=1")
        let r2 = CMCDReport(sessionID: "s", sequence: 2, body: "sid=\"s\",sn=2")
        XCTAssertEqual(try store.insertCMCD([r1, r2, r1]), [.stored, .stored, .duplicate], file: file, line: line)
        XCTAssertEqual(try store.insertCMCD([CMCDReport(sessionID: "s", sequence: 2, body: "other")]), [.duplicate], file: file, line: line)
        XCTAssertEqual(try store.cmcdReports(sessionID: "s"), [r1, r2], file: file, line: line)
    }

    /// Many threads at once: every distinct bundle stored exactly once, every resend a duplicate.
    static func concurrent(_ store: CollectorStore, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try store.allBundles().count
        let subs = (0..<200).map { _ in CollectorFixture.submission() }
        let outcomes = Locked<[Int: [BundleInsertOutcome]]>([:])
        let errors = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 400) { i in
            let s = subs[i % subs.count]
            do {
                let o = try store.insertBundle(s)
                outcomes.update { $0[i % subs.count, default: []].append(o) }
            } catch {
                errors.update { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(errors.value, [], file: file, line: line)
        for (i, s) in subs.enumerated() {
            let os = outcomes.value[i] ?? []
            XCTAssertEqual(os.filter { $0 == .stored(acknowledgement: s.acknowledgement) }.count, 1, file: file, line: line)
            XCTAssertEqual(os.filter { $0 == .duplicate(acknowledgement: s.acknowledgement) }.count, 1, file: file, line: line)
        }
        XCTAssertEqual(try store.allBundles().count, before + subs.count, file: file, line: line)
    }
}

