import RegionKernels

/// The ops of docs/integer-ops.md §4 on windows. Position-wise ops run the reference
/// kernels themselves on the cropped window; depth_to_space runs them on the input window
/// and crops; the two convolutions are the §4.1/§4.2 sums written for tensor coordinates,
/// reading only the input window (whose extent `requiredWindows` made sufficient) and
/// taking every position outside the input tensor as zero padding.
enum WindowKernels {
    static func run(_ op: Op, _ xs: [WindowValue], inputShapes: [Shape], narrowInput: Bool, output w: Window,
                    outputShape: Shape, site: ReferenceSite, cache: WindowCache?) throws -> WindowValue {
        let shape = Shape(outputShape.channels, w.rows.count, w.cols.count)
        let isa = cache?.isa ?? WindowCache.bestISA
        func value(_ v: [Int32]) -> WindowValue { WindowValue(window: w, channels: outputShape.channels, values: v) }
        if w.isEmpty { return value([]) }
        switch op {
        case .requantize(let p):
            return value(try ReferenceKernels.requantize(xs[0].crop(w), shape, p, site: site))
        case .add:
            return value(try ReferenceKernels.add(xs[0].crop(w), xs[1].crop(w), site: site))
        case .clamp(let lo, let hi):
            return value(ReferenceKernels.clamp(xs[0].crop(w), lo: lo, hi: hi))
        case .lookup(let p):
            return value(try ReferenceKernels.lookup(xs[0].crop(w), p, site: site))
        case .inverseGDN(let p):
            return value(try inverseGDN(xs[0].crop(w), shape, p, site: site, isa: isa))
        case .concat:
            return value(ReferenceKernels.concat(xs.map { $0.crop(w) }))
        case .warp(let p):
            // xs[0] is the volume's window the flows reach (RegionEngine.evaluateChecked), xs[1]
            // the window's flow.
            return value(try ReferenceKernels.warp(xs[0].values, inputShapes[0], vWindow: xs[0].window, flow: xs[1].crop(w),
                                                   p, rows: w.rows, cols: w.cols, site: site))
        case .depthToSpace(let r):
            let x = xs[0]
            let y = ReferenceKernels.depthToSpace(x.values, x.shape, block: r)
            let covered = WindowValue(window: Window(rows: (x.window.rows.lowerBound * r)..<(x.window.rows.upperBound * r),
                                                     cols: (x.window.cols.lowerBound * r)..<(x.window.cols.upperBound * r)),
                                      channels: outputShape.channels, values: y)
            return value(covered.crop(w))
        case .conv2d(let p):
            return value(conv(xs[0], inputShapes[0], p, transposed: false, narrow: narrowInput, w, outputShape.channels,
                              weights: cache?.weights(site.node) { reordered(p, false, inputShapes[0].channels, outputShape.channels) }
                                  ?? reordered(p, false, inputShapes[0].channels, outputShape.channels), isa: isa))
        case .convTranspose2d(let p):
            return value(conv(xs[0], inputShapes[0], p, transposed: true, narrow: narrowInput, w, outputShape.channels,
                              weights: cache?.weights(site.node) { reordered(p, true, inputShapes[0].channels, outputShape.channels) }
                                  ?? reordered(p, true, inputShapes[0].channels, outputShape.channels), isa: isa))
        }
    }

    /// §4.1 y[o][i][j] = b[o] + Σ w[o][c][u][v]·x[c][i·s − pad + u][j·s − pad + v];
    /// §4.2 y[o][i][j] = b[o] + Σ { w[c][o][u][v]·x[c][a][b] : a·s − pad + u = i, b·s − pad + v = j }.
    ///
    /// Spot checks run this on every decode, so it is laid out for speed: the input window
    /// is copied channels-last and the weights to [o][tap][c], making the innermost loop a
    /// contiguous dot product over input channels, run in the CPU's widest integer vectors
    /// (Sources/RegionKernels). It accumulates in Int32 with wrapping
    /// operators because that is exact here: the certificate (§5) bounds every partial sum
    /// of output channel o, in any order, inside S_o ⊂ int32, for inputs inside the
    /// contract, which BackendHost.run checked and every window upstream reproduces.
    /// The weights as [o][tap][c]: contiguous over input channels.
    static func reordered(_ p: ConvParams, _ transposed: Bool, _ cin: Int, _ cout: Int) -> [Int16] {
        let taps = p.kernelH * p.kernelW
        var wT = [Int16](repeating: 0, count: cout * taps * cin)
        p.weights.withUnsafeBufferPointer { src in
            wT.withUnsafeMutableBufferPointer { dst in
                for o in 0..<cout {
                    for t in 0..<taps {
                        let row = (o * taps + t) * cin
                        for c in 0..<cin {
                            dst[row + c] = src[(transposed ? c * cout + o : o * cin + c) * taps + t]
                        }
                    }
                }
            }
        }
        return wT
    }

    private static func conv(_ x: WindowValue, _ xShape: Shape, _ p: ConvParams, transposed: Bool, narrow: Bool,
                             _ w: Window, _ cout: Int, weights wT: [Int16], isa: wai_region_isa) -> [Int32] {
        let cin = xShape.channels
        let (kh, kw, s, pad) = (p.kernelH, p.kernelW, p.stride, p.pad)
        let taps = kh * kw
        let (xr, xc) = (x.window.rows, x.window.cols)
        let xPlane = xr.count * xc.count
        // Taps that reach the input window, per output row and column: (tap, input row/col).
        func reach(_ out: Int, _ k: Int, _ window: Range<Int>) -> [(Int, Int)] {
            var result: [(Int, Int)] = []
            for u in 0..<k {
                let a: Int
                if transposed {
                    let t = out + pad - u
                    guard t >= 0, t % s == 0 else { continue }
                    a = t / s
                } else {
                    a = out * s - pad + u
                }
                if window.contains(a) { result.append((u, a - window.lowerBound)) }
            }
            return result
        }
        let rowTaps = w.rows.map { reach($0, kh, xr) }
        let colTaps = w.cols.map { reach($0, kw, xc) }
        // x channels-last: [position][c]; a narrow tensor's values fit Int16 (§2), and
        // Int16 × Int16 summed into Int32 is the multiply-add pairs instruction (pmaddwd, vpdpwssd).
        if narrow {
            var xT = [Int16](repeating: 0, count: xPlane * cin)
            x.values.withUnsafeBufferPointer { src in
                xT.withUnsafeMutableBufferPointer { dst in
                    for c in 0..<cin { for q in 0..<xPlane { dst[q * cin + c] = Int16(truncatingIfNeeded: src[c * xPlane + q]) } }
                }
            }
            return accumulate(xT, wide: false, wT, p, w, cin: cin, cout: cout, taps: taps, kw: kw, cols: xc.count,
                              rowTaps: rowTaps, colTaps: colTaps, isa: isa)
        }
        var xT = [Int32](repeating: 0, count: xPlane * cin)
        x.values.withUnsafeBufferPointer { src in
            xT.withUnsafeMutableBufferPointer { dst in
                for c in 0..<cin { for q in 0..<xPlane { dst[q * cin + c] = src[c * xPlane + q] } }
            }
        }
        return accumulate(xT, wide: true, wT, p, w, cin: cin, cout: cout, taps: taps, kw: kw, cols: xc.count,
                          rowTaps: rowTaps, colTaps: colTaps, isa: isa)
    }

    private static func accumulate<X: FixedWidthInteger & SignedInteger>(
        _ xT: [X], wide: Bool, _ wT: [Int16], _ p: ConvParams, _ w: Window, cin: Int, cout: Int, taps: Int, kw: Int, cols: Int,
        rowTaps: [[(Int, Int)]], colTaps: [[(Int, Int)]], isa: wai_region_isa) -> [Int32] {
        var y = [Int32](repeating: 0, count: cout * w.rows.count * w.cols.count)
        let outPlane = w.rows.count * w.cols.count
        // (weight offset, input offset) of each (tap, input position) one output position sums over.
        var wOff: [Int32] = [], xOff: [Int32] = []
        wOff.reserveCapacity(taps); xOff.reserveCapacity(taps)
        xT.withUnsafeBufferPointer { xp in
            wT.withUnsafeBufferPointer { wp in
                p.bias.withUnsafeBufferPointer { bp in
                    y.withUnsafeMutableBufferPointer { yp in
                        for ri in 0..<w.rows.count {
                            for ci in 0..<w.cols.count {
                                wOff.removeAll(keepingCapacity: true)
                                xOff.removeAll(keepingCapacity: true)
                                for (u, a) in rowTaps[ri] {
                                    for (v, b) in colTaps[ci] {
                                        wOff.append(Int32((u * kw + v) * cin))
                                        xOff.append(Int32((a * cols + b) * cin))
                                    }
                                }
                                guard let base = yp.baseAddress else { return }
                                wai_region_conv_position(wp.baseAddress, xp.baseAddress, wide ? 1 : 0, bp.baseAddress,
                                                         wOff, xOff, Int32(wOff.count), Int32(cin), Int32(cout),
                                                         taps * cin, base + ri * w.cols.count + ci, outPlane, isa)
                            }
                        }
                    }
                }
            }
        }
        return y
    }

    /// Inverse GDN of a window in the C loop, exact under the certificate (§5 bounds x·x,
    /// every partial sum of n, x·isqrt(n) and its rounding in int32); shifts outside what
    /// those bounds allow go to the reference kernel.
    static func inverseGDN(_ x: [Int32], _ shape: Shape, _ p: InverseGDNParams, site: ReferenceSite,
                           isa: wai_region_isa) throws -> [Int32] {
        let positions = shape.height * shape.width
        guard (0...31).contains(p.squareShift), (0...31).contains(p.outShift), x.count == shape.channels * positions,
              p.beta.count == shape.channels, p.gamma.count == shape.channels * shape.channels, !x.isEmpty else {
            return try ReferenceKernels.inverseGDN(x, shape, p, site: site)
        }
        var y = [Int32](repeating: 0, count: x.count)
        var scratch = [Int32](repeating: 0, count: 2 * x.count)
        wai_region_igdn(x, Int32(shape.channels), Int32(positions), p.beta, p.gamma, p.squareShift, p.outShift,
                        &y, &scratch, isa)
        return y
    }
}

/// Per-graph memory of the region engine: convolution weights reordered for the windowed
/// kernels, by node index. One cache belongs to one graph (BackendHost keeps one per graph
/// it spot-checks), so a node index names the same weights every time.
public final class WindowCache: @unchecked Sendable {
    private let lock = Mutex()
    private var reorderedWeights: [Int: [Int16]] = [:]
    /// The instruction set the C loops run in: the CPU's widest, or a narrower one a test
    /// asks for (every path is compared with the reference, RegionEngineTests).
    let isa: wai_region_isa
    static let bestISA = wai_region_best_isa()

    public init() { isa = Self.bestISA }
    init(isa: RegionISA) { self.isa = wai_region_isa(rawValue: UInt32(isa.rawValue)) }

    func weights(_ node: Int, _ make: () -> [Int16]) -> [Int16] {
        if let w = lock.withLock({ reorderedWeights[node] }) { return w }
        let w = make()
        lock.withLock { reorderedWeights[node] = w }
        return w
    }
}

/// The instruction sets of Sources/RegionKernels, widest last.
enum RegionISA: Int, CaseIterable {
    case scalar = 0, avx2 = 1, avx512 = 2

    /// The widest this CPU and OS run.
    static var best: RegionISA { RegionISA(rawValue: Int(WindowCache.bestISA.rawValue)) ?? .scalar }
}
