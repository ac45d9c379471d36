import BackendABI

/// docs/backend-abi.md §2.3 and §5: fills the caller's `wai_unit_info` for one unit, the one
/// way every backend in this package does it. The caller sized the struct: it must hold the
/// frozen 1.0 size — not this build's sizeof, so a 1.0 host's struct is enough — and only the
/// 1.0 members are written. Names longer than their field are cut and NUL-terminated.
package func writeUnitInfo<Device: Collection<UInt8>, Driver: Collection<UInt8>>(
    _ out: UnsafeMutablePointer<wai_unit_info>, kind: wai_unit_kind, device: Device, driver: Driver, narrowStorage: Bool
) throws {
    let size = out.pointee.struct_size
    guard size >= ABISize.unitInfo else {
        throw BackendFailure.invalid("unit_info: struct_size \(size) is smaller than the \(ABISize.unitInfo) bytes of ABI 1.0")
    }
    out.pointee.kind = kind.rawValue
    copyName(device, into: &out.pointee.device)
    copyName(driver, into: &out.pointee.driver)
    out.pointee.narrow_storage = narrowStorage ? 1 : 0
}

/// The bytes of a fixed C char array (a runtime's name field) up to its first NUL, never
/// past its end: raw bytes, so a driver's identity reaches the probe cache key unchanged.
package func nameBytes<Field>(of field: Field) -> [UInt8] {
    withUnsafeBytes(of: field) { raw in Array(raw.prefix { $0 != 0 }) }
}

private func copyName<Name: Collection<UInt8>, Field>(_ name: Name, into field: inout Field) {
    withUnsafeMutableBytes(of: &field) { raw in
        let bytes = Array(name.prefix(raw.count - 1))
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
}
