import WaiHost
import WaiHostCAPI
#if canImport(Glibc)
import Glibc
#endif

// docs/c-api.md §5.3–5.4: decoding into host-allocated or caller-owned pixels, the report.

/// The largest payload or envelope accepted, as `waihost decode` does (checked before any copy).
let maximumPayloadSize = 1 << 30

/// Runs `body`, turning what it throws into a failure classified by `phase`.
func during<T>(_ phase: CAPIFailure.Phase, _ body: () throws -> T) throws -> T {
    do { return try body() } catch { throw CAPIFailure(error, phase: phase) }
}

/// The caller's payload bytes, bounded before they are copied.
func payloadBytes(_ payload: UnsafePointer<UInt8>?, _ length: Int) throws -> [UInt8] {
    guard let payload else { throw CAPIFailure.null("payload") }
    guard length > 0 else { throw CAPIFailure(WAIHOST_ERR_PAYLOAD, "payload is empty (payload_len 0)") }
    guard length <= maximumPayloadSize else {
        throw CAPIFailure(WAIHOST_ERR_PAYLOAD, "payload_len \(length) is larger than the limit of \(maximumPayloadSize) bytes")
    }
    return Array(UnsafeBufferPointer(start: payload, count: length))
}

/// Width and height from the payload's header (an envelope's SHA-256 is checked too).
func pictureSize(_ bytes: [UInt8]) throws -> (width: Int, height: Int) {
    try during(.payload) {
        let opened = try CapabilityRegistry.open(bytes, expecting: IntHyperModelSet.capability)
        let p = try IntHyperPayload.parse(opened.payload)
        return (p.width, p.height)
    }
}

@_cdecl("waihost_image_size")
public func waihost_image_size(_ payload: UnsafePointer<UInt8>?, _ length: Int,
                               _ width: UnsafeMutablePointer<UInt32>?, _ height: UnsafeMutablePointer<UInt32>?,
                               _ size: UnsafeMutablePointer<Int>?,
                               _ msg: UnsafeMutablePointer<CChar>?, _ cap: Int) -> waihost_status {
    guarded(msg, cap) {
        let (w, h) = try pictureSize(try payloadBytes(payload, length))
        width?.pointee = UInt32(w)
        height?.pointee = UInt32(h)
        size?.pointee = w * h * 3
    }
}

@_cdecl("waihost_decode")
public func waihost_decode(_ host: OpaquePointer?, _ payload: UnsafePointer<UInt8>?, _ length: Int,
                           _ modelDir: UnsafePointer<CChar>?, _ unit: UnsafePointer<CChar>?,
                           _ image: UnsafeMutablePointer<waihost_image>?,
                           _ report: UnsafeMutablePointer<UnsafeMutablePointer<waihost_report>?>?,
                           _ msg: UnsafeMutablePointer<CChar>?, _ cap: Int) -> waihost_status {
    guarded(msg, cap) {
        report?.pointee = nil
        let handle = try HostHandle.from(host)
        guard let image else { throw CAPIFailure.null("image") }
        try CAPIFailure.checkSize(image.pointee.struct_size, "waihost_image", minimum: MemoryLayout<waihost_image>.size)
        guard let modelDir else { throw CAPIFailure.null("model_dir") }
        // NULL: the configuration's default unit (docs/configuration.md §3), "best" unless set.
        let selection = try during(.other) { try optionalString(unit).map { try UnitSelection(parsing: $0) } } ?? handle.host.configuration.defaultUnit
        let bytes = try payloadBytes(payload, length)

        // A caller-owned buffer is checked against the header before any decoding work.
        let (w, h) = try pictureSize(bytes)
        let needed = w * h * 3
        let callerBuffer = image.pointee.pixels
        image.pointee.width = UInt32(w)
        image.pointee.height = UInt32(h)
        image.pointee.stride = w * 3
        image.pointee.size = needed
        if callerBuffer != nil, image.pointee.capacity < needed {
            throw CAPIFailure(WAIHOST_ERR_BUFFER_TOO_SMALL,
                              "the picture is \(w)×\(h), \(needed) bytes of RGB8 rows; the buffer holds \(image.pointee.capacity)")
        }

        let set = try during(.modelSet) { try IntHyperModelSet.load(directory: String(cString: modelDir)) }
        let decoded = try during(.payload) { () throws -> IntHyperCodec.Decoded in
            // Probe (or read cached verdicts) first, as `waihost decode` does.
            if selection != .reference { _ = try handle.host.currentProbe() }
            return try IntHyperCodec.decode(bytes, modelSet: set, runner: HostGraphRunner(host: handle.host, selection: selection))
        }
        let summary = IntHyperDecodeReport(decoded, modelSet: set, output: nil)
        let reportBlock = try report.map { _ in try makeReport(summary, ref: decoded.result.synthesisReport.ref) }

        let pixels = decoded.image.pixels
        let target: UnsafeMutablePointer<UInt8>
        if let callerBuffer {
            target = callerBuffer
        } else {
            guard let p = malloc(max(pixels.count, 1)) else {
                free(reportBlock)
                throw CAPIFailure(WAIHOST_ERR_NO_MEMORY, "cannot allocate \(pixels.count) bytes for the pixels")
            }
            target = p.bindMemory(to: UInt8.self, capacity: pixels.count)
        }
        pixels.withUnsafeBufferPointer { b in
            if let a = b.baseAddress { memcpy(target, a, b.count) }
        }
        image.pointee.pixels = target
        image.pointee.size = pixels.count
        report?.pointee = reportBlock
    }
}

/// The report in one block; `unit_index` is that of `ref`, the unit g_s ran on (the one the
/// report names), -1 for the reference interpreter.
func makeReport(_ r: IntHyperDecodeReport, ref: UnitRef) throws -> UnsafeMutablePointer<waihost_report> {
    let index = Int32(clamping: ref.index ?? -1)
    let json = try JSONText.of(r)
    var block = try CBlock<waihost_report>(count: 1, strings: [r.unit.rawValue, r.backend, r.device, r.driver, r.dispatch.rawValue,
                                                               r.reason, r.sha256, json])
    block.elements.pointee = waihost_report(
        struct_size: MemoryLayout<waihost_report>.size,
        unit_kind: block.string(r.unit.rawValue), backend: block.string(r.backend), unit_index: index,
        device: block.string(r.device), driver: block.string(r.driver), dispatch: block.string(r.dispatch.rawValue),
        reason: block.string(r.reason), rank: Int32(clamping: r.rank ?? 0), sha256: block.string(r.sha256),
        width: UInt32(r.width), height: UInt32(r.height), json: block.string(json))
    return block.elements
}

@_cdecl("waihost_report_json")
public func waihost_report_json(_ report: UnsafePointer<waihost_report>?) -> UnsafePointer<CChar>? {
    report?.pointee.json
}
