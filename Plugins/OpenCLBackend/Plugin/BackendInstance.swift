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

    func fillUnitInfo(unit: UInt32, _ out: UnsafeMutablePointer<wai_unit_info>) throws {
        guard Int(unit) < units.count else {
            throw BackendFailure.invalid("unit_info: unit \(unit) does not exist (the opencl backend has \(units.count) units)")
        }
        let u = units[Int(unit)]
        try writeUnitInfo(out, kind: wai_unit_kind(u.kind), device: nameBytes(of: u.device), driver: nameBytes(of: u.driver),
                          narrowStorage: u.narrow != 0)
    }
}

/// A runtime call with room for a quoted build log in its message.
func call(_ what: String, _ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws {
    try callRuntime(what, messageCapacity: 4096, body)
}
