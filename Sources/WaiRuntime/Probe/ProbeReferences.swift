/// The suite's cases and the reference interpreter's outputs for one probe run, shared by
/// the sessions of every unit probed in it (docs/probe.md §8): each stage is built once and
/// each case run once on the reference, whichever unit needs it first, while the others
/// wait for it rather than computing it again. An output is dropped once every session has
/// taken it.
final class ProbeReferences: @unchecked Sendable {
    private final class Slot<T>: @unchecked Sendable {
        let lock = Mutex()
        var value: T?
        var takers = 0
    }

    private let lock = Mutex()
    private var stages: [ProbeStage: Slot<[ProbeCase]>] = [:]
    private var outputs: [String: Slot<[TensorValue]>] = [:]
    /// How many sessions will ask for each output.
    private let sessions: Int

    /// The decode stage's codec decodes, built once per run like every stage's cases.
    let codecVectors: CodecProbeVectors

    init(sessions: Int, codecVectors: CodecProbeVectors = .none) {
        self.sessions = max(1, sessions); self.codecVectors = codecVectors
    }

    func cases(_ stage: ProbeStage, build: () throws -> [ProbeCase]) rethrows -> [ProbeCase] {
        let slot = lock.withLock { () -> Slot<[ProbeCase]> in
            if let s = stages[stage] { return s }
            let s = Slot<[ProbeCase]>()
            stages[stage] = s
            return s
        }
        return try slot.lock.withLock {
            if let v = slot.value { return v }
            let v = try build()
            slot.value = v
            return v
        }
    }

    /// The outputs under `key`, computed by `compute` for the first session that asks; a
    /// failure is not remembered (each asker then reports it).
    func expected(_ key: String, compute: () throws -> [TensorValue]) rethrows -> [TensorValue] {
        let slot = lock.withLock { () -> Slot<[TensorValue]> in
            if let s = outputs[key] { return s }
            let s = Slot<[TensorValue]>()
            outputs[key] = s
            return s
        }
        let (value, last) = try slot.lock.withLock { () -> ([TensorValue], Bool) in
            let v: [TensorValue]
            if let have = slot.value { v = have } else { v = try compute(); slot.value = v }
            slot.takers += 1
            return (v, slot.takers >= sessions)
        }
        if last { lock.withLock { outputs[key] = nil } }
        return value
    }
}
