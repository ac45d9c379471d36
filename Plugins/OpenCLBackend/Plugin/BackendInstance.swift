import BackendABI
import BackendDescriptor
import OpenCLRuntime

/// One open backend object: every device of every OpenCL platform, one unit each. No
/// loader, no platform or no device makes `open` fail with no_device and the reason (the
/// host then goes on without this backend).
final class OpenCLBackendInstance {
    let context: OpaquePointer
    let units: [oclrt_unit]

    private init(context: OpaquePointer, units: [oclrt_unit]) {
        self.context = context
        self.units = units
    }

    deinit { oclrt_close(context) }

    var unitCount: UInt32 { UInt32(units.count) }

    static func open() throws -> OpenCLBackendInstance {
        var context: OpaquePointer?
        try call("open") { err, cap in oclrt_open(&context, err, cap) }
        guard let context else { throw BackendFailure(status: WAI_ERR_INTERNAL, message: "open: the runtime returned no context") }
        var units: [oclrt_unit] = []
        for k in 0..<oclrt_unit_count(context) {
            var unit = oclrt_unit()
            do {
                try call("open: unit \(k)") { err, cap in oclrt_unit_info(context, k, &unit, err, cap) }
            } catch {
                oclrt_close(context)
                throw error
            }
            units.append(unit)
        }
        return OpenCLBackendInstance(context: context, units: units)
    }

    /// docs/backend-abi.md §2.3: the caller sized the struct; write only members inside it.
    func fillUnitInfo(unit: UInt32, _ out: UnsafeMutablePointer<wai_unit_info>) throws {
        guard Int(unit) < units.count else {
            throw BackendFailure.invalid("unit_info: unit \(unit) does not exist (the opencl backend has \(units.count) units)")
        }
        let size = out.pointee.struct_size
        let needed = MemoryLayout<wai_unit_info>.size
        guard size >= needed else {
            throw BackendFailure.invalid("unit_info: struct_size \(size) is smaller than the \(needed) bytes of ABI 1.0")
        }
        var u = units[Int(unit)]
        out.pointee.kind = u.kind
        withUnsafeMutableBytes(of: &out.pointee.device) { dst in
            withUnsafeBytes(of: &u.device) { dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(dst.count))) }
            dst[dst.count - 1] = 0
        }
        withUnsafeMutableBytes(of: &out.pointee.driver) { dst in
            withUnsafeBytes(of: &u.driver) { dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(dst.count))) }
            dst[dst.count - 1] = 0
        }
        out.pointee.narrow_storage = u.narrow
    }
}

/// Runs one runtime call with a message buffer large enough for a quoted build log; a
/// non-zero status becomes a BackendFailure.
func call(_ what: String, _ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws {
    var buffer = [CChar](repeating: 0, count: 4096)
    let status = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    guard status == 0 else {
        let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw BackendFailure(status: wai_status(UInt32(status)), message: "\(what): \(message)")
    }
}
