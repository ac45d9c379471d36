import WaiHost
import Foundation

/// A unit's stable device identity, read from what the probe recorded (docs/cli.md, "Unit
/// identity"): the GPU backends end their driver string with " pci VVVV:DDDD (DOMAIN:BUS:DEV.FN)"
/// and the DRM render node when the device reports its PCI address; units without one (CPU
/// paths, software rasterisers) are identified by backend, index and device name.
struct DeviceIdentity: Encodable, Equatable {
    /// "0000:0a:00.0".
    var pciAddress: String?
    /// "1002:73bf" (vendor:device).
    var pciID: String?
    /// "/dev/dri/renderD129".
    var renderNode: String?

    enum CodingKeys: String, CodingKey { case pciAddress = "pci_address", pciID = "pci_id", renderNode = "render_node" }

    init(pciAddress: String?, pciID: String?, renderNode: String?) {
        self.pciAddress = pciAddress; self.pciID = pciID; self.renderNode = renderNode
    }

    init(driver: String) {
        guard let r = driver.range(of: " pci ", options: .backwards) else { return }
        let words = driver[r.upperBound...].split(separator: " ")
        guard words.count >= 2, Self.isPCIID(words[0]), words[1].hasPrefix("("), words[1].hasSuffix(")") else { return }
        pciID = String(words[0])
        pciAddress = String(words[1].dropFirst().dropLast())
        if words.count >= 3, words[2].hasPrefix("/dev/") { renderNode = String(words[2]) }
    }

    var isEmpty: Bool { pciAddress == nil }

    /// "pci 0000:0a:00.0" or nil.
    var text: String? { pciAddress.map { "pci " + $0 } }

    private static func isPCIID(_ s: Substring) -> Bool {
        let parts = s.split(separator: ":")
        return parts.count == 2 && parts.allSatisfy { $0.count == 4 && $0.allSatisfy(\.isHexDigit) }
    }
}

/// Which unit a run report names, with its identity: `unit_index`, `selector` ("cpu:0",
/// "reference") and `device_identity` added to every report of a run.
struct UnitIdentity: Encodable, Equatable {
    var unitIndex: Int?
    var selector: UnitRef
    var deviceIdentity: DeviceIdentity?

    enum CodingKeys: String, CodingKey { case unitIndex = "unit_index", selector, deviceIdentity = "device_identity" }

    /// `driver` is the unit's as the probe recorded it (a run report carries it).
    init(_ ref: UnitRef, driver: String) {
        unitIndex = ref.index
        selector = ref
        let identity = DeviceIdentity(driver: driver)
        deviceIdentity = identity.isEmpty ? nil : identity
    }

    init(_ report: RunReport) { self.init(report.ref, driver: report.driver) }
}
