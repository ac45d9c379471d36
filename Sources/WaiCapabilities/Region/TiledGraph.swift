/// How much one tile's graph may hold (docs/capabilities/int_hyper.md §3.1).
public struct TileBudget: Equatable, Sendable {
    /// Bytes of every tensor of one tile's graph together, at 4 bytes an element (how the
    /// host and the reference interpreter hold them).
    public var bytes: Int
    /// The largest tensor (elements) the unit takes, when it has a limit.
    public var maxTensorElements: Int?
    /// Square output tiles of this side instead of the planned grid: tests compare tilings.
    public var tileSide: Int?

    public init(bytes: Int, maxTensorElements: Int? = nil, tileSide: Int? = nil) {
        self.bytes = bytes; self.maxTensorElements = maxTensorElements; self.tileSide = tileSide
    }

    /// A quarter of the host's memory bound (`MemoryBound`): 256 MiB by default, which with
    /// the whole-picture arrays keeps a 24-megapixel decode or encode with N = 128, M = 192
    /// under 1 GiB (docs/capabilities/int_hyper.md §3.1).
    public static var standard: TileBudget { TileBudget(bytes: MemoryBound.bytes / 4) }
}

public enum TilingError: Error, Equatable, CustomStringConvertible {
    /// Even the smallest tile's graph is over the budget.
    case budgetTooSmall(bytes: Int, maxTensorElements: Int?, smallestTileBytes: Int, smallestTileLargestTensor: Int)
    /// A tile's graph would not compute what the whole graph computes there (a graph the
    /// region engine cannot tile).
    case notTileable(reason: String)
    case badOutput(graph: String, reason: String)

    public var description: String {
        switch self {
        case let .budgetTooSmall(bytes, limit, tb, tl):
            return "tiling: the smallest tile needs \(tb) bytes of tensors (largest tensor \(tl) elements); "
                + "the budget is \(bytes) bytes" + (limit.map { " and \($0) elements per tensor" } ?? "")
        case let .notTileable(reason):
            return "tiling: \(reason)"
        case let .badOutput(graph, reason):
            return "tiling: \(graph): \(reason)"
        }
    }
}

/// A one-input, one-output graph run tile by tile over a picture (docs/capabilities/int_hyper.md
/// §3.1, docs/probe.md §7): for each output tile the region engine finds the input window
/// that determines it; the graph is instantiated on that window alone, and only the tile is
/// kept of its output. Inside a window every value has its real neighbours and at the
/// picture's edge the same zero padding, so the kept values equal the untiled run's.
public struct TiledGraph {
    public struct Tile: Equatable, Sendable {
        /// What this tile contributes, in the whole graph's output coordinates.
        public var output: Window
        /// The input window the tile's graph runs on.
        public var input: Window
        /// Whole-graph output coordinates of the tile graph's output element (0, 0).
        public var originRow: Int
        public var originCol: Int
        /// Elements of every tensor of the tile's graph, and of its largest.
        public var elements: Int
        public var largest: Int
        /// The size of the tile graph's input: tiles of one size share one graph instance.
        var inputExtent: Extent { Extent(height: input.rows.count, width: input.cols.count) }
    }

    public let graph: IntegerGraph
    public let inputExtent: Extent
    /// The output region the tiles cover (the top-left of the output: a picture is cropped).
    public let region: Extent
    let extents: [Extent]
    let inputIndex: Int
    let outputIndex: Int
    let inputAlignment: Int
    let outputAlignment: Int

    /// `graph` at any stored size; `input` the whole input's extent; `region` defaults to the
    /// whole output.
    public init(_ graph: IntegerGraph, input: Extent, region: Extent? = nil) throws {
        guard graph.inputs.count == 1, graph.outputs.count == 1 else {
            throw TilingError.notTileable(reason: "a tiled graph has one input and one output (this one \(graph.inputs.count) and \(graph.outputs.count))")
        }
        self.graph = graph
        inputExtent = input
        inputIndex = graph.inputs[0]
        outputIndex = graph.outputs[0]
        do { extents = try SpatialExtents.of(graph, input: input) } catch {
            throw TilingError.notTileable(reason: "\(error)")
        }
        let whole = extents[outputIndex]
        let r = region ?? whole
        guard r.height >= 1, r.width >= 1, r.height <= whole.height, r.width <= whole.width else {
            throw TilingError.notTileable(reason: "region \(r) is not inside the output \(whole)")
        }
        self.region = r
        inputAlignment = SpatialExtents.inputAlignment(graph)
        outputAlignment = SpatialExtents.outputAlignment(graph)
    }

    public var outputExtent: Extent { extents[outputIndex] }

    /// The tile producing output window `out`; with `size`, its input window is widened to
    /// that extent where the input allows (a larger window is as exact, and tiles of one
    /// size share one instantiated, verified and prepared graph).
    public func tile(_ out: Window, size: Extent? = nil) throws -> Tile {
        let need = RegionEngine.requiredWindows(graph, extents: extents, output: outputIndex, window: out)
        guard let w = need[inputIndex], !w.isEmpty else {
            throw TilingError.notTileable(reason: "output \(out) depends on no input")
        }
        func down(_ v: Int) -> Int { v / inputAlignment * inputAlignment }
        func up(_ v: Int, _ n: Int) -> Int { min(n, (v + inputAlignment - 1) / inputAlignment * inputAlignment) }
        // Grown at the end first, then at the start (on the alignment grid), inside 0..<n.
        func widened(_ r: Range<Int>, _ n: Int, _ target: Int?) -> Range<Int> {
            guard let target, target > r.count else { return r }
            let hi = min(n, r.lowerBound + target)
            let lo = max(0, down(hi - target))
            return lo..<hi
        }
        let input = Window(rows: widened(down(w.rows.lowerBound)..<up(w.rows.upperBound, inputExtent.height),
                                         inputExtent.height, size?.height),
                           cols: widened(down(w.cols.lowerBound)..<up(w.cols.upperBound, inputExtent.width),
                                         inputExtent.width, size?.width))
        let sub: [Extent]
        do { sub = try SpatialExtents.of(graph, input: Extent(height: input.rows.count, width: input.cols.count)) } catch {
            throw TilingError.notTileable(reason: "input window \(input): \(error)")
        }
        guard let offsets = SpatialExtents.offsets(graph, origin: (input.rows.lowerBound, input.cols.lowerBound)) else {
            throw TilingError.notTileable(reason: "input window \(input) is off the strided convolutions' grid")
        }
        var elements = 0, largest = 0
        for t in graph.tensors.indices {
            let o = offsets[t], e = sub[t]
            if let n = need[t], !n.isEmpty {
                // Every value the tile needs is computed by the tile's graph (its extent never
                // reaches past the whole tensor's, so its zero padding is the whole graph's).
                guard n.rows.lowerBound >= o.row, n.rows.upperBound <= o.row + e.height,
                      n.cols.lowerBound >= o.col, n.cols.upperBound <= o.col + e.width else {
                    throw TilingError.notTileable(reason: "tensor \(t) needs \(n) but the tile graph on \(input) computes only "
                        + "rows \(o.row)..<\(o.row + e.height), cols \(o.col)..<\(o.col + e.width)")
                }
            }
            let count = graph.tensors[t].shape.channels * e.height * e.width
            elements += count
            largest = max(largest, count)
        }
        return Tile(output: out, input: input, originRow: offsets[outputIndex].row, originCol: offsets[outputIndex].col,
                    elements: elements, largest: largest)
    }

    /// Tiles of `height` × `width` (the last row and column of tiles narrower), every input
    /// window widened to the largest among them.
    func tiles(height: Int, width: Int) throws -> [Tile] {
        var windows: [Window] = []
        for r in stride(from: 0, to: region.height, by: height) {
            for c in stride(from: 0, to: region.width, by: width) {
                windows.append(Window(rows: r..<min(r + height, region.height), cols: c..<min(c + width, region.width)))
            }
        }
        let first = try windows.map { try tile($0) }
        guard first.count > 1 else { return first }
        let size = Extent(height: first.map(\.input.rows.count).max() ?? 1, width: first.map(\.input.cols.count).max() ?? 1)
        return try windows.map { try tile($0, size: size) }
    }

    /// Tiles grouped by input window size (in plan order within a size).
    static func bySize(_ tiles: [Tile]) -> [Tile] {
        tiles.enumerated().sorted { a, b in
            let ea = a.element.inputExtent, eb = b.element.inputExtent
            let ka = (ea.height, ea.width), kb = (eb.height, eb.width)
            return ka != kb ? ka < kb : a.offset < b.offset
        }.map(\.element)
    }

    static func fits(_ t: Tile, _ b: TileBudget) -> Bool {
        t.elements <= b.bytes / 4 && t.largest <= GraphStructure.maxElements && t.largest <= (b.maxTensorElements ?? Int.max)
    }

    /// The tiles: one when the whole graph fits the budget (so the run is the untiled run);
    /// else the grid of equal tiles (sides multiples of the graph's upsampling factor) whose
    /// graphs, every tile's window widened to the largest, compute the fewest elements in
    /// all while each fits (docs/capabilities/int_hyper.md §3.1).
    public func plan(_ budget: TileBudget) throws -> [Tile] {
        if let s = budget.tileSide { return try tiles(height: max(1, s), width: max(1, s)) }
        let whole = try tile(Window(rows: 0..<region.height, cols: 0..<region.width))
        if Self.fits(whole, budget) { return [whole] }
        let unit = outputAlignment
        // A full-size tile, interior (halo on both sides) where the region holds one: every
        // tile's window is widened to the largest, so this is what each tile computes.
        func probe(height: Int, width: Int) throws -> Tile {
            func axis(_ s: Int, _ n: Int) -> Range<Int> {
                let s = min(s, n)
                let r0 = min(s, n - s)
                return r0..<(r0 + s)
            }
            return try tile(Window(rows: axis(height, region.height), cols: axis(width, region.width)))
        }
        let smallest = try probe(height: unit, width: unit)
        guard Self.fits(smallest, budget) else {
            throw TilingError.budgetTooSmall(bytes: budget.bytes, maxTensorElements: budget.maxTensorElements,
                                             smallestTileBytes: smallest.elements * 4, smallestTileLargestTensor: smallest.largest)
        }
        // The side of `count` equal tiles over `n`, up to the upsampling grid.
        func side(_ n: Int, _ count: Int) -> Int { min(n, ((n + count - 1) / count + unit - 1) / unit * unit) }
        func count(_ n: Int, _ side: Int) -> Int { (n + side - 1) / side }
        let rowsMost = count(region.height, unit), colsMost = count(region.width, unit)
        // For each number of tile rows the fewest columns that fit (more columns only add
        // halos), then the grid of least work. Tiles of the largest square side that fits,
        // the planner before this one, computed up to 2.8 times the untiled graph's work on
        // 1920×1080 (a thin last row and column of tiles, widened to full tiles).
        var best: (work: Int, height: Int, width: Int)?
        var lastHeight = 0
        for rows in 1...rowsMost {
            let h = side(region.height, rows)
            if h == lastHeight { continue }
            lastHeight = h
            guard Self.fits(try probe(height: h, width: unit), budget) else { continue }
            var lo = 1, hi = colsMost
            while lo < hi {
                let mid = (lo + hi) / 2
                if Self.fits(try probe(height: h, width: side(region.width, mid)), budget) { hi = mid } else { lo = mid + 1 }
            }
            let w = side(region.width, lo)
            let work = count(region.height, h) * count(region.width, w) * (try probe(height: h, width: w)).elements
            if best.map({ work < $0.work }) ?? true { best = (work, h, w) }
            if lo == 1 { break }   // full-width strips: more rows only add halos
        }
        if let b = best {
            let all = try tiles(height: b.height, width: b.width)
            if all.allSatisfy({ Self.fits($0, budget) }) { return all }
        }
        // Alignment made some tile larger than its probe: the square tiles of the planner
        // before this one, the largest side whose probe fits, shrunk until all fit.
        var lo = 1, hi = max(rowsMost, colsMost)
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if Self.fits(try probe(height: mid * unit, width: mid * unit), budget) { lo = mid } else { hi = mid - 1 }
        }
        var k = lo
        while true {
            let all = try tiles(height: k * unit, width: k * unit)
            if all.allSatisfy({ Self.fits($0, budget) }) || k == 1 { return all }
            k -= 1
        }
    }

    /// Runs the tiles on `runner`: `input` gives the values of an input window (CHW, every
    /// channel), `output` receives each tile with its graph's whole output and the run's report. Resized graphs
    /// are made (and their certificates verified) once per tile size. When the runner learns
    /// a smaller tensor limit for its unit while running (a unit that answered `unsupported`
    /// for a tile too large for its buffers), the picture is planned again below it.
    /// Returns the runs' report (`summary`) and how many tiles ran.
    public func run(budget: TileBudget, runner: GraphRunner, name: String, model: ModelGraphID? = nil,
                    input: (Window) throws -> TensorValue,
                    output: (Tile, TensorValue, RunReport) throws -> Void) throws -> (report: RunReport, tiles: Int) {
        var b = budget
        if let limit = runner.maxTensorElements(for: graph) { b.maxTensorElements = min(limit, b.maxTensorElements ?? limit) }
        var tiles = Self.bySize(try plan(b))
        var resized: [Extent: IntegerGraph] = [:]
        var reports: [RunReport] = []
        var i = 0
        while i < tiles.count {
            let t = tiles[i]
            let e = t.inputExtent
            let g: IntegerGraph
            if let hit = resized[e] { g = hit } else {
                g = try GraphResizing.resized(graph, height: e.height, width: e.width)
                resized[e] = g
            }
            let x = try input(t.input)
            // A model set's graph: the unit is qualified for it first (docs/probe.md §9).
            let r = try model.map { try runner.run(g, inputs: [x], model: $0) } ?? runner.run(g, inputs: [x])
            guard let y = r.outputs.first, let shape = GraphResizing.outputShape(g), y.shape == shape,
                  y.values.count == shape.count else {
                throw TilingError.badOutput(graph: name, reason: "tile \(i + 1) of \(tiles.count) returned no output of the expected shape")
            }
            try output(t, y, r.report)
            reports.append(r.report)
            i += 1
            // Tiles of one size run together; a size done, its graph's buffers go, unless it
            // is the plan's only size: then, like a whole run's, they stay for the next
            // picture of this size (a decoded sequence, a server's pictures), which would
            // otherwise prepare the graph and fault its buffers in again every time.
            // (`bySize` sorted the plan, so it has one size when its first tile's is this one.)
            if tiles.count > 1, (i == tiles.count ? tiles[0].inputExtent : tiles[i].inputExtent) != e {
                runner.release(g)
                resized[e] = nil
            }
            if let limit = runner.maxTensorElements(for: graph), limit < (b.maxTensorElements ?? Int.max),
               tiles[i...].contains(where: { $0.largest > limit }) {
                b.maxTensorElements = limit
                tiles = Self.bySize(try plan(b))
                reports = []
                i = 0
            }
        }
        guard let first = reports.first else { throw TilingError.notTileable(reason: "the plan has no tiles") }
        return (Self.summary(first, reports), reports.count)
    }
}

extension TiledGraph {
    /// One report for a graph run in tiles: the first tile's, and when other tiles ran
    /// elsewhere (a unit failed over) the reason says where each ran.
    static func summary(_ first: RunReport, _ reports: [RunReport]) -> RunReport {
        var first = first
        var counts: [(String, Int)] = []
        for r in reports {
            let name = "\(r.backend) (\(r.device))"
            if let k = counts.firstIndex(where: { $0.0 == name }) { counts[k].1 += 1 } else { counts.append((name, 1)) }
        }
        if counts.count > 1 {
            first.reason += "; the \(reports.count) tiles ran on " + counts.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
        }
        // Every tile's spot check counts.
        if reports.contains(where: { $0.spotCheckCPUMilliseconds != nil }) {
            first.spotCheckCPUMilliseconds = reports.reduce(0) { $0 + ($1.spotCheckCPUMilliseconds ?? 0) }
            first.spotCheckWaitMilliseconds = reports.reduce(0) { $0 + ($1.spotCheckWaitMilliseconds ?? 0) }
        }
        return first
    }
}

extension TensorValue {
    /// The values of window `w` of this tensor (every channel), CHW.
    func window(_ w: Window) -> TensorValue {
        let v = WindowValue(window: Window(rows: 0..<shape.height, cols: 0..<shape.width), channels: shape.channels, values: values)
        return TensorValue(shape: Shape(shape.channels, w.rows.count, w.cols.count), values: v.crop(w))
    }
}
