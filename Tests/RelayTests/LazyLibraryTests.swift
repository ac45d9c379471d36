import CLazyLibrary
import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The loader behind libcurl, libpq, libmicrohttpd and libsqlite3 (Sources/CLazyLibrary,
/// docs/architecture.md "Libraries loaded on first use"): what a user sees when a library is
/// missing or too old, and that a load runs once however many threads ask.
final class LazyLibraryTests: XCTestCase {
    /// A loader over `soname` and `symbols`; the C struct points into the memory this object owns.
    private final class Library {
        let names: [UnsafeMutablePointer<CChar>]
        let symbols: UnsafeMutablePointer<UnsafePointer<CChar>?>
        let slots: UnsafeMutablePointer<UnsafeMutableRawPointer?>
        let soname: UnsafeMutablePointer<CChar>
        /// On the heap: the loader's once-flag must stay at one address (an inout copy would not).
        let lib = UnsafeMutablePointer<waih_lazy_library>.allocate(capacity: 1)

        init(_ soname: String, _ symbols: [String], afterLoad: (@convention(c) () -> Void)? = nil) {
            self.soname = strdup(soname)
            names = symbols.map { strdup($0) }
            self.symbols = .allocate(capacity: max(1, names.count))
            slots = .allocate(capacity: max(1, names.count))
            for (i, n) in names.enumerated() {
                self.symbols[i] = UnsafePointer(n)
                slots[i] = nil
            }
            lib.initialize(to: waih_lazy_library())  // zero: PTHREAD_ONCE_INIT is 0 on glibc
            lib.pointee.soname = UnsafePointer(self.soname)
            lib.pointee.symbols = UnsafePointer(self.symbols)
            lib.pointee.slots = slots
            lib.pointee.count = names.count
            lib.pointee.after_load = afterLoad
        }

        deinit {
            names.forEach { free($0) }
            free(soname)
            symbols.deallocate()
            slots.deallocate()
            lib.deallocate()
        }

        func load() -> String? { waih_lazy_library_load(lib).map { String(cString: $0) } }
    }

    func testAMissingLibraryIsNamedAndTheAnswerStays() {
        let library = Library("libwaihost-no-such-library.so.7", ["anything"])
        let first = library.load()
        XCTAssertNotNil(first)
        XCTAssertTrue(first?.hasPrefix("libwaihost-no-such-library.so.7 could not be loaded: ") == true, first ?? "")
        XCTAssertTrue(first?.contains("No such file") == true, first ?? "")
        // Not retried: the process gets one answer.
        XCTAssertEqual(library.load(), first)
        XCTAssertNil(library.slots[0])
    }

    func testALibraryLackingAFunctionIsRefusedWholeNamingIt() {
        let library = Library("libz.so.1", ["zlibVersion", "waihost_no_such_function", "crc32"])
        let error = library.load()
        XCTAssertEqual(error, "libz.so.1 has no function waihost_no_such_function (a version older than the one WaiHost was built against?)")
        // All or none: the symbol found before the missing one is not left behind.
        for i in 0..<3 { XCTAssertNil(library.slots[i], "slot \(i)") }
    }

    private static let afterLoadCalls = Locked(0)

    func testALoadRunsOnceForEveryThreadAndFillsEverySlot() throws {
        let library = Library("libz.so.1", ["zlibVersion", "crc32"], afterLoad: { LazyLibraryTests.afterLoadCalls.update { $0 += 1 } })
        let answers = Locked<[String?]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let a = library.load()
            answers.update { $0.append(a) }
        }
        XCTAssertEqual(answers.value, Array(repeating: nil, count: 16))
        XCTAssertEqual(Self.afterLoadCalls.value, 1)
        // The slot is the library's own function: call it.
        let zlibVersion = unsafeBitCast(try XCTUnwrap(library.slots[0]), to: (@convention(c) () -> UnsafePointer<CChar>).self)
        XCTAssertTrue(String(cString: zlibVersion()).hasPrefix("1."))
        XCTAssertEqual(waih_lazy_library_slot(library.lib, 1), library.slots[1])
    }
}
