/// Graphs re-sized to a picture's size and verified (docs/integer-ops.md §5), remembered so
/// that decoding picture after picture of one size with one model set verifies each graph
/// once, not once per decode. The key is the whole source graph (every weight, interval and
/// shape, by equality, which is O(1) for the same storage) and the size: another model set
/// or another size never hits. In memory only; process-wide.
final class VerifiedInstantiations: @unchecked Sendable {
    static let shared = VerifiedInstantiations(limit: 8)

    private struct Entry {
        var source: IntegerGraph
        var height: Int
        var width: Int
        var resized: IntegerGraph
    }

    private let lock = Mutex()
    private var entries: [Entry] = []
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    /// The verified instantiation of `source` at height × width, made (and verified) by
    /// `make` when it is not remembered. A graph `make` refuses is not remembered.
    func instantiation(of source: IntegerGraph, height: Int, width: Int,
                       make: () throws -> IntegerGraph) rethrows -> IntegerGraph {
        let hit = lock.withLock { () -> IntegerGraph? in
            guard let i = entries.firstIndex(where: { $0.height == height && $0.width == width && $0.source == source })
            else { return nil }
            let e = entries.remove(at: i)
            entries.append(e)
            return e.resized
        }
        if let hit { return hit }
        let made = try make()
        lock.withLock {
            entries.append(Entry(source: source, height: height, width: width, resized: made))
            if entries.count > limit { entries.removeFirst() }
        }
        return made
    }

    var count: Int { lock.withLock { entries.count } }
}
