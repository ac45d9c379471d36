// Benchmark of y entropy decoding (docs/entropy-coding.md §5 against §8), not a test: built
// and run by scripts/bench-entropy.sh. The tables are the seeded generator's 64 Gaussian y
// tables (docs/capabilities/int_hyper.md §7); each value's scale index and value are drawn
// from a splitmix64 sequence, values from their own table's distribution, so the rate is
// the tables' own (about 2.5 bits per value). The same values are coded once as one §5
// stream (payload version 1) and once as a lane stream (version 2), and decoded in the same
// run: v1 with the loop of IntHyperDecoder's version-1 path, v2 by each loop on 1 thread
// (the Swift one, the portable C one, the AVX2 and AVX-512 ones where the CPU has them), and by the
// Swift loop and by the decoder's own choice of loops on all threads.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

@main
struct EntropyBench {
    static func now(_ clock: clockid_t = CLOCK_MONOTONIC) -> Double {
        var t = timespec()
        clock_gettime(clock, &t)
        return Double(t.tv_sec) * 1e3 + Double(t.tv_nsec) / 1e6
    }

    /// Median wall time and median CPU time of the whole process (all threads) over `runs`:
    /// on a loaded machine the wall time includes waiting for a core, the CPU time does not.
    static func median(_ runs: Int, _ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
        var walls: [Double] = [], cpus: [Double] = []
        for _ in 0..<runs {
            let t0 = now(), c0 = now(CLOCK_PROCESS_CPUTIME_ID)
            try body()
            walls.append(now() - t0)
            cpus.append(now(CLOCK_PROCESS_CPUTIME_ID) - c0)
        }
        return (walls.sorted()[runs / 2], cpus.sorted()[runs / 2])
    }

    static func main() {
        do {
            try run()
        } catch {
            fputs("entropy-bench: \(error)\n", stderr)
            exit(1)
        }
    }

    static func run() throws {
        let args = CommandLine.arguments
        let env = ProcessInfo.processInfo.environment
        let runs = args.count > 2 ? Int(args[2]) ?? 5 : 5
        let threads = args.count > 3 ? Int(args[3]) ?? 2 : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        // WAI_BENCH_TABLES=entropy.json: a trained model set's y tables instead (peaked
        // distributions, escapes in the wide tables), each value's table drawn uniformly.
        let file = env["WAI_BENCH_TABLES"]
        let tables = try file.map { try loadTables($0) } ?? (0..<64).map {
            try DiscreteGaussian.table(sigma: pow(2, Double($0) / 6 - 3), contract: -128...127, precision: 16)
        }
        let latents = env["WAI_BENCH_LATENTS"]
        let values: [Int32], selection: [Int32]
        if let folder = latents {
            // A real decode's y and scale indices (`waihost decode --latents DIR`,
            // docs/capabilities/int_hyper.md §8.1), coded with that payload's model set's tables.
            guard file != nil else { throw BenchError("WAI_BENCH_LATENTS needs WAI_BENCH_TABLES=MODELSET/entropy.json, the tables of the set that decoded it") }
            (values, selection) = try loadLatents(folder, tables: tables.count)
            print("latents: \(folder) (y \(values.count) values, the payload's own scale indices)")
        } else {
            let count = args.count > 1 ? Int(args[1]) ?? 6_220_800 : 6_220_800   // M=192 at 3840×2160
            (values, selection) = generated(count: count, tables: tables, uniform: file != nil)
        }
        let count = values.count
        var v1 = RansEncoder()
        for i in 0..<count { v1.encode(values[i], table: tables[Int(selection[i])]) }
        let stream1 = v1.finish()
        // WAI_BENCH_LANES=L: that many lanes (a low-rate stream's encoder writes few, §8.3);
        // a real y gets the lane count the encoder gives it, so its stream is the payload's.
        let lanes = env["WAI_BENCH_LANES"].flatMap { Int($0) } ?? (latents == nil
            ? RansLanes.defaultLaneCount(forValueCount: count)
            : RansLanes.laneCount(forValueCount: count, singleStreamBytes: stream1.count))
        guard var v2 = RansLaneEncoder(laneCount: lanes) else { fatalError("lane count") }
        for i in 0..<count { v2.encode(values[i], table: tables[Int(selection[i])]) }
        let stream2 = v2.finish()
        let set = RansTableSet(tables)
        // The contract check's cost, not its bounds: the seeded values' contract, or a real
        // y's own extremes (its set's contract holds them).
        let contract = latents == nil ? -128...127 : Int(values.min() ?? 0)...Int(values.max() ?? 0)

        let t1 = try median(runs) {
            var d = try RansDecoder(stream1)
            var out: [Int32] = []
            out.reserveCapacity(min(count, 1 << 20))
            for i in 0..<count {
                let v = try d.decode(table: tables[Int(selection[i])])
                guard contract.contains(Int(v)) else { fatalError("contract") }
                out.append(v)
            }
            try d.finish()
            if out.count != count { fatalError("v1 differs") }
        }
        func v2run(_ n: Int, _ path: RansLaneDecoder.Path = .best) throws -> (wall: Double, cpu: Double) {
            try median(runs) {
                let out = try RansLaneDecoder.decodeWithExtremes(stream2, count: count, tables: set, selection: selection,
                                                                 threads: n, path: path)
                // The contract check of IntHyperDecoder's version-2 path: the decoder's extremes.
                guard let e = out?.extremes, contract.contains(Int(e.lowerBound)), contract.contains(Int(e.upperBound)) else {
                    fatalError("contract")
                }
            }
        }
        let loops: [(String, RansLaneDecoder.Path)] = [("Swift", .swift), ("portable C", .only(.portable))]
            + (RansLaneDecoder.avx2Available ? [("AVX2", .only(.avx2))] : [])
            + (RansLaneDecoder.vectorAvailable ? [("AVX-512", .only(.avx512))] : [])
        let extremes = values.min().flatMap { lo in values.max().map { lo...$0 } }
        for (name, path) in loops + [("best", .best)] {
            for n in Set([1, threads]) {
                let decoded = try RansLaneDecoder.decodeWithExtremes(stream2, count: count, tables: set, selection: selection,
                                                                     threads: n, path: path)
                guard decoded?.values == values, decoded?.extremes == extremes else {
                    fatalError("v2 differs (\(name) loop, \(n) threads)")
                }
            }
        }
        var rows = [("v1 (one §5 stream, 1 thread)", t1)]
        for (name, path) in loops { rows.append(("v2 (\(name) loop, 1 thread)", try v2run(1, path))) }
        rows.append(("v2 (Swift loop, \(threads) threads)", try v2run(threads, .swift)))
        rows.append(("v2 (best loops, \(threads) threads)", try v2run(threads)))
        func rate(_ ms: Double) -> String { String(Int((Double(count) / ms / 1e3).rounded())) + " M/s" }
        print("values \(count), v1 stream \(stream1.count) bytes, v2 stream \(stream2.count) bytes (\(lanes) lanes, +\(stream2.count - stream1.count) bytes)")
        print("                               wall ms (rate, ÷ v1)              cpu ms of all threads (rate per cpu-second)")
        for (name, t) in rows {
            print(name + String(repeating: " ", count: max(1, 36 - name.count))
                  + "\(fmt(t.wall)) (\(rate(t.wall)), \(fmt(t1.wall / t.wall))×)    \(fmt(t.cpu)) (\(rate(t.cpu)))")
        }
    }

    /// Each value's scale index and value from a splitmix64 sequence: the index around σ ≈ 1.5
    /// (or uniform over a model set's tables), the value from its table's own distribution.
    static func generated(count: Int, tables: [FrequencyTable], uniform: Bool) -> (values: [Int32], selection: [Int32]) {
        var rng = SplitMix64(seed: 15)
        var selection = [Int32](repeating: 0, count: count)
        var values = [Int32](repeating: 0, count: count)
        for i in 0..<count {
            let r = rng.next()
            let index = uniform ? Int(r % UInt64(tables.count)) : max(0, min(63, 21 + Int(r % 13) - 6))
            selection[i] = Int32(index)
            let t = tables[index]
            let slot = UInt32(truncatingIfNeeded: r >> 32) & 0xFFFF
            let s = t.symbol(forSlot: slot)
            values[i] = s == t.escapeSymbol ? Int32(t.highestDirectValue + 1) : t.value(ofDirectSymbol: s)
        }
        return (values, selection)
    }

    struct BenchError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    /// y and y_scale_index of a `latents.json` (docs/capabilities/int_hyper.md §8.1), each
    /// file's size checked against its shape before it is read, every index against the tables.
    static func loadLatents(_ folder: String, tables: Int) throws -> (values: [Int32], selection: [Int32]) {
        let path = folder + "/latents.json"
        guard let data = FileManager.default.contents(atPath: path),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let arrays = json["arrays"] as? [[String: Any]] else {
            throw BenchError("\(path): cannot read, or not a latents.json")
        }
        func array(_ name: String) throws -> [Int32] {
            guard let a = arrays.first(where: { $0["name"] as? String == name }), let file = a["file"] as? String,
                  a["element"] as? String == "int32le", let shape = a["shape"] as? [Int], shape.count == 3,
                  shape.allSatisfy({ (1...(1 << 20)).contains($0) }), !file.contains("/") else {
                throw BenchError("\(path): no int32le array \"\(name)\" of three dimensions")
            }
            let count = shape.reduce(1, *)
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + file)
            guard count <= 1 << 28, (attributes[.size] as? Int) == count * 4,
                  let bytes = FileManager.default.contents(atPath: folder + "/" + file) else {
                throw BenchError("\(folder)/\(file): not \(count) int32 values (shape \(shape))")
            }
            return Int32LE.values([UInt8](bytes))
        }
        let values = try array("y"), selection = try array("y_scale_index")
        guard values.count == selection.count else { throw BenchError("\(path): y and y_scale_index differ in size") }
        if let bad = selection.firstIndex(where: { $0 < 0 || Int($0) >= tables }) {
            throw BenchError("\(folder): y_scale_index[\(bad)] is \(selection[bad]), not one of the \(tables) tables")
        }
        return (values, selection)
    }

    /// The y tables of an entropy.json, read and checked as the host reads a model set's.
    static func loadTables(_ path: String) throws -> [FrequencyTable] {
        guard let data = FileManager.default.contents(atPath: path) else { throw BenchError("\(path): cannot read") }
        return try IntHyperEntropyModel.parse(Array(data), file: path).yTables
    }

    static func fmt(_ x: Double) -> String {
        let r = (x * 100).rounded() / 100
        return String(r)
    }
}
