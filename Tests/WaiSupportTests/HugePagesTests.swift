import XCTest
import Foundation
import WaiSupport

/// Large buffers advised for huge pages (Sources/WaiSupport/HugePages.swift): only their
/// whole aligned 2 MiB is advised, the advice reaches the kernel, and the arrays built on
/// it hold exactly the values asked for.
final class HugePagesTests: XCTestCase {
    private let mib = UInt(1 << 20)

    func testOnlyTheWholeAligned2MiBOfABufferAreAdvised() {
        XCTAssertEqual(HugePages.alignedPart(start: 4096, count: 10 << 20), 2 * mib..<10 * mib,
                       "the first 2 MiB boundary up to the last one the buffer reaches")
        XCTAssertEqual(HugePages.alignedPart(start: 2 * mib, count: 4 << 20), 2 * mib..<6 * mib,
                       "an aligned buffer is advised whole")
        XCTAssertNil(HugePages.alignedPart(start: 4096, count: 3 << 20),
                     "3 MiB that start off a boundary hold no whole aligned 2 MiB")
        XCTAssertNil(HugePages.alignedPart(start: 2 * mib, count: (2 << 20) - 1), "one byte short of a huge page")
        XCTAssertNil(HugePages.alignedPart(start: 4096, count: 0))
        XCTAssertNil(HugePages.alignedPart(start: UInt.max - 4095, count: 4096), "no range past the address space")
        XCTAssertNil(HugePages.alignedPart(start: UInt.max - (1 << 21), count: 8 << 20), "a count that overflows")
    }

    /// The kernel records the advice as the `hg` flag of the range's mapping in
    /// /proc/self/smaps, whether or not it later finds a free huge page.
    func testTheAdviceReachesTheKernel() throws {
        guard FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled") else {
            throw XCTSkip("this kernel has no transparent huge pages")
        }
        let count = 8 << 20
        let raw = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 4096)
        defer { raw.deallocate() }
        let buffer = UnsafeMutableRawBufferPointer(start: raw, count: count)
        let part = try XCTUnwrap(HugePages.alignedPart(start: UInt(bitPattern: raw), count: count))
        HugePages.advise(buffer)
        let advised = try flags(at: part.lowerBound)
        XCTAssertTrue(advised.contains("hg"), "the aligned part is not advised: \(advised)")
        XCTAssertTrue(try flags(at: part.upperBound - 1).contains("hg"), "the advice stops short of the last huge page")
    }

    func testArraysOnAdvisedStorageHoldTheirValues() {
        let count = 3_000_001
        let zeros = [Int32](hugePagesRepeating: 0, count: count)
        XCTAssertEqual(zeros.count, count)
        XCTAssertTrue(zeros.allSatisfy { $0 == 0 })
        let sevens = [UInt8](hugePagesRepeating: 7, count: 5)
        XCTAssertEqual(sevens, [7, 7, 7, 7, 7], "a small array is advised nothing and still filled")
        let source = (0..<count).map { Int32(truncatingIfNeeded: $0 &* 2_654_435_761) }
        let copy = source.withUnsafeBufferPointer { [Int32](hugePagesCopying: $0) }
        XCTAssertEqual(copy, source)
        XCTAssertEqual([Int32](hugePagesCopying: UnsafeBufferPointer(start: nil, count: 0)), [])
    }

    /// The VmFlags of the mapping holding `address`, from /proc/self/smaps.
    private func flags(at address: UInt) throws -> [Substring] {
        // Read to the end: String(contentsOfFile:) stops after the first read of a /proc file.
        let file = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        defer { try? file.close() }
        let smaps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if let range = fields.first, range.contains("-"), fields.count >= 5 {
                let ends = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = ends.count == 2 && ends[0] <= address && address < ends[1]
            } else if inside, line.hasPrefix("VmFlags:") {
                return fields.dropFirst().map { $0 }
            }
        }
        XCTFail("no mapping holds \(String(address, radix: 16)) in /proc/self/smaps")
        return []
    }
}
