import WaiHost
import WaiHostCAPI

// docs/c-api.md §5.2: probing and listing units.

@_cdecl("waihost_probe")
public func waihost_probe(_ host: OpaquePointer?, _ fresh: Int32,
                          _ units: UnsafeMutablePointer<UnsafeMutablePointer<waihost_unit>?>?,
                          _ count: UnsafeMutablePointer<Int>?,
                          _ msg: UnsafeMutablePointer<CChar>?, _ cap: Int) -> waihost_status {
    guarded(msg, cap) {
        guard let units else { throw CAPIFailure.null("units") }
        guard let count else { throw CAPIFailure.null("count") }
        units.pointee = nil
        count.pointee = 0
        let rows = try HostHandle.from(host).host.probe(fresh: fresh != 0).units
        let strings = rows.flatMap { [$0.backend, $0.path, $0.unit.rawValue, $0.device, $0.driver, $0.state.rawValue, $0.reason] }
        var block = try CBlock<waihost_unit>(count: rows.count, strings: strings)
        for (i, r) in rows.enumerated() {
            block.elements[i] = waihost_unit(
                struct_size: MemoryLayout<waihost_unit>.size,
                backend: block.string(r.backend), path: block.string(r.path), kind: block.string(r.unit.rawValue),
                index: Int32(clamping: r.index ?? -1), device: block.string(r.device), driver: block.string(r.driver),
                state: block.string(r.state.rawValue), rank: Int32(clamping: r.rank ?? 0),
                runs_per_second: r.speed?.runsPerSecond ?? 0, reason: block.string(r.reason),
                cached: r.cached ? 1 : 0)
        }
        units.pointee = block.elements
        count.pointee = rows.count
    }
}

@_cdecl("waihost_probe_json")
public func waihost_probe_json(_ host: OpaquePointer?, _ fresh: Int32,
                               _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                               _ msg: UnsafeMutablePointer<CChar>?, _ cap: Int) -> waihost_status {
    guarded(msg, cap) {
        guard let json else { throw CAPIFailure.null("json") }
        json.pointee = nil
        let text = try JSONText.of(try HostHandle.from(host).host.probe(fresh: fresh != 0))
        var block = try CBlock<CChar>(count: 0, strings: [text])
        json.pointee = UnsafeMutablePointer(mutating: block.string(text))
    }
}
