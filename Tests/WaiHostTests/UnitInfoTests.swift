import BackendABI
import BackendDescriptor
import XCTest

/// docs/backend-abi.md §2.3 and §5 through `writeUnitInfo`, the one writer the CPU, Vulkan and
/// OpenCL backends share: the frozen 1.0 size is required and enough, nothing is written past
/// the caller's struct_size, and names are cut to their field with a NUL.
final class UnitInfoTests: XCTestCase {
    private static let guardByte: UInt8 = 0xAB

    /// A caller's struct of `size` bytes followed by 32 guard bytes.
    private func withCallerStruct(size: Int, _ body: (UnsafeMutablePointer<wai_unit_info>) throws -> Void) rethrows -> [UInt8] {
        let total = max(size, MemoryLayout<wai_unit_info>.size) + 32
        let raw = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: MemoryLayout<wai_unit_info>.alignment)
        defer { raw.deallocate() }
        raw.initializeMemory(as: UInt8.self, repeating: Self.guardByte, count: total)
        raw.storeBytes(of: size, as: Int.self)
        try body(raw.bindMemory(to: wai_unit_info.self, capacity: 1))
        return Array(UnsafeRawBufferPointer(start: raw, count: total))
    }

    func testTheOneZeroSizeIsRequiredAndNothingPastItIsWritten() throws {
        XCTAssertThrowsError(try withCallerStruct(size: ABISize.unitInfo - 1) {
            try writeUnitInfo($0, kind: WAI_UNIT_GPU, device: "d".utf8, driver: "v".utf8, narrowStorage: true)
        }) { error in
            let failure = error as? BackendFailure
            XCTAssertEqual(failure?.status, WAI_ERR_INVALID_ARGUMENT)
            XCTAssertTrue(failure?.message.contains("struct_size \(ABISize.unitInfo - 1)") ?? false, "\(error)")
        }
        var written = wai_unit_info()
        let bytes = try withCallerStruct(size: ABISize.unitInfo) {
            try writeUnitInfo($0, kind: WAI_UNIT_GPU, device: "llvmpipe".utf8, driver: "Mesa 22.3".utf8, narrowStorage: true)
            written = $0.pointee
        }
        XCTAssertEqual(bytes[ABISize.unitInfo...].filter { $0 != Self.guardByte }.count, 0, "written past struct_size")
        XCTAssertEqual(written.kind, WAI_UNIT_GPU.rawValue)
        XCTAssertEqual(written.narrow_storage, 1)
        XCTAssertEqual(withUnsafeBytes(of: written.device) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }, "llvmpipe")
        XCTAssertEqual(withUnsafeBytes(of: written.driver) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }, "Mesa 22.3")
    }

    func testLongNamesAreCutToTheirFieldWithANul() throws {
        var written = wai_unit_info()
        _ = try withCallerStruct(size: ABISize.unitInfo) {
            try writeUnitInfo($0, kind: WAI_UNIT_CPU, device: Array(repeating: UInt8(ascii: "x"), count: 300),
                              driver: "".utf8, narrowStorage: false)
            written = $0.pointee
        }
        let field = MemoryLayout.size(ofValue: written.device)
        XCTAssertEqual(nameBytes(of: written.device), Array(repeating: UInt8(ascii: "x"), count: field - 1))
        XCTAssertEqual(nameBytes(of: written.driver), [])
        XCTAssertEqual(written.narrow_storage, 0)
    }

    /// A runtime's name field is read up to its first NUL and never past its end.
    func testNameBytesStopAtTheNulOrTheFieldsEnd() {
        var info = wai_unit_info()
        withUnsafeMutableBytes(of: &info.device) { raw in
            raw.copyBytes(from: Array("gpu\u{0}junk".utf8))
        }
        XCTAssertEqual(nameBytes(of: info.device), Array("gpu".utf8))
        withUnsafeMutableBytes(of: &info.driver) { raw in
            for i in raw.indices { raw[i] = UInt8(ascii: "y") }
        }
        XCTAssertEqual(nameBytes(of: info.driver).count, MemoryLayout.size(ofValue: info.driver))
    }
}
