import BackendABI
import BackendDescriptor
import VulkanRuntime

/// One open backend object: a Vulkan instance and its physical devices, one unit each.
/// No loader or no device makes `open` fail with no_device and the reason (the host then
/// goes on without this backend).
final class VulkanBackendInstance {
    let context: OpaquePointer
    let units: [vkrt_unit]

    private init(context: OpaquePointer, units: [vkrt_unit]) {
        self.context = context
        self.units = units
    }

    deinit { vkrt_close(context) }

    var unitCount: UInt32 { UInt32(units.count) }

    static func open() throws -> VulkanBackendInstance {
        var context: OpaquePointer?
        try call("open") { err, cap in vkrt_open(&context, err, cap) }
        guard let context else { throw BackendFailure(status: WAI_ERR_INTERNAL, message: "open: the runtime returned no context") }
        var units: [vkrt_unit] = []
        for k in 0..<vkrt_unit_count(context) {
            var unit = vkrt_unit()
            do {
                try call("open: unit \(k)") { err, cap in vkrt_unit_info(context, k, &unit, err, cap) }
            } catch {
                vkrt_close(context)
                throw error
            }
            units.append(unit)
        }
        return VulkanBackendInstance(context: context, units: units)
    }

    /// docs/backend-abi.md §2.3: the caller sized the struct; write only members inside it.
    func fillUnitInfo(unit: UInt32, _ out: UnsafeMutablePointer<wai_unit_info>) throws {
        guard Int(unit) < units.count else {
            throw BackendFailure.invalid("unit_info: unit \(unit) does not exist (the vulkan backend has \(units.count) units)")
        }
        let size = out.pointee.struct_size
        // The frozen 1.0 size, not this build's sizeof: a 1.0 host's struct is enough, and a
        // member a later minor appends is written only when `size` covers it.
        let needed = ABISize.unitInfo
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

/// Runs one runtime call with a message buffer; a non-zero status becomes a BackendFailure.
func call(_ what: String, _ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws {
    var buffer = [CChar](repeating: 0, count: 512)
    let status = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    guard status == 0 else {
        let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw BackendFailure(status: wai_status(UInt32(status)), message: "\(what): \(message)")
    }
}
