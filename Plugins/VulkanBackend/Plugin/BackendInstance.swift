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

    func fillUnitInfo(unit: UInt32, _ out: UnsafeMutablePointer<wai_unit_info>) throws {
        guard Int(unit) < units.count else {
            throw BackendFailure.invalid("unit_info: unit \(unit) does not exist (the vulkan backend has \(units.count) units)")
        }
        let u = units[Int(unit)]
        try writeUnitInfo(out, kind: wai_unit_kind(u.kind), device: nameBytes(of: u.device), driver: nameBytes(of: u.driver),
                          narrowStorage: u.narrow != 0)
    }
}

/// A runtime call (docs/backend-abi.md §4 for how its failure reaches the host).
func call(_ what: String, _ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws {
    try callRuntime(what, messageCapacity: 512, body)
}
