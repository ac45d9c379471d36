import XCTest
import TestSupport
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The probe cache's memory of file hashes is bounded (docs/probe.md §5): what a probe used
/// stays, an unused entry stays only while its file still has the remembered stat, and no
/// more than the limit are written.
final class CacheHygieneTests: XCTestCase {
    private func stat(_ n: UInt64) -> FileStat { FileStat(device: 1, inode: n, size: 10, mtimeNs: 5, ctimeNs: 5) }

    func testTheFileHashMemoryKeepsWhatWasUsedAndWhatCanStillMatch() {
        let all: [String: FileHashes.Entry] = [
            "/used": .init(stat: stat(1), sha256: "a"),
            "/unchanged": .init(stat: stat(2), sha256: "b"),
            "/replaced": .init(stat: stat(3), sha256: "c"),
            "/gone": .init(stat: stat(4), sha256: "d"),
        ]
        let now: [String: FileStat] = ["/unchanged": stat(2), "/replaced": stat(33)]
        let kept = FileHashes.pruned(all, used: ["/used"], stat: { now[$0] })
        XCTAssertEqual(Set(kept.keys), ["/used", "/unchanged"])
        XCTAssertEqual(kept["/unchanged"]?.sha256, "b")
    }

    /// What the host's check that a plugin is still the one probed rests on
    /// (BackendHost.workerUnit): a file with the remembered stat is not read, so its
    /// remembered hash comes back; once written, it is read and its real hash comes back.
    func testAFileWithTheRememberedStatIsNotReadAndAChangedOneIs() throws {
        let dir = try TempDir("waihost-file-hashes")
        let path = dir.path + "/plugin.so"
        try Data("probed".utf8).write(to: URL(fileURLWithPath: path))
        let remembered = try XCTUnwrap(FileStat.of(path))
        let hashes = FileHashes([path: .init(stat: remembered, sha256: "remembered")])
        XCTAssertEqual(try hashes.sha256(path), "remembered", "the file was read although its stat is the remembered one")

        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data([0]))
        handle.closeFile()
        XCTAssertEqual(try hashes.sha256(path), SHA256.hex(Array("probed\0".utf8)))
    }

    func testTheFileHashMemoryIsBoundedUsedEntriesFirst() {
        var all: [String: FileHashes.Entry] = [:]
        for i in 0..<50 { all["/f\(i)"] = .init(stat: stat(UInt64(i)), sha256: "\(i)") }
        let used: Set<String> = ["/f7", "/f40"]
        let kept = FileHashes.pruned(all, used: used, stat: { p in all[p]?.stat }, limit: 10)
        XCTAssertEqual(kept.count, 10)
        XCTAssertTrue(used.isSubset(of: Set(kept.keys)))
    }
}
