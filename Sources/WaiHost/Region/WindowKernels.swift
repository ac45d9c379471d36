/// The ops of docs/integer-ops.md §4 on windows. Position-wise ops run the reference
/// kernels themselves on the cropped window; depth_to_space runs them on the input window
/// and crops; the two convolutions are the §4.1/§4.2 sums written for tensor coordinates,
/// reading only the input window (whose extent `requiredWindows` made sufficient) and
/// taking every position outside the input tensor as zero padding.
enum WindowKernels {
    static func run(_ op: Op, _ xs: [WindowValue], inputShapes: [Shape], output w: Window, outputShape: Shape,
                    site: ReferenceSite) throws -> WindowValue {
        let shape = Shape(outputShape.channels, w.rows.count, w.cols.count)
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
            return value(try ReferenceKernels.inverseGDN(xs[0].crop(w), shape, p, site: site))
        case .concat:
            return value(ReferenceKernels.concat(xs.map { $0.crop(w) }))
        case .depthToSpace(let r):
            let x = xs[0]
            let y = ReferenceKernels.depthToSpace(x.values, x.shape, block: r)
            let covered = WindowValue(window: Window(rows: (x.window.rows.lowerBound * r)..<(x.window.rows.upperBound * r),
                                                     cols: (x.window.cols.lowerBound * r)..<(x.window.cols.upperBound * r)),
                                      channels: outputShape.channels, values: y)
            return value(covered.crop(w))
        case .conv2d(let p):
            return value(try conv(xs[0], inputShapes[0], p, transposed: false, w, outputShape.channels, site: site))
        case .convTranspose2d(let p):
            return value(try conv(xs[0], inputShapes[0], p, transposed: true, w, outputShape.channels, site: site))
        }
    }

    /// §4.1 y[o][i][j] = b[o] + Σ w[o][c][u][v]·x[c][i·s − pad + u][j·s − pad + v];
    /// §4.2 y[o][i][j] = b[o] + Σ { w[c][o][u][v]·x[c][a][b] : a·s − pad + u = i, b·s − pad + v = j }.
    /// Sums in Int64, checked against int32 as the reference does per output.
    private static func conv(_ x: WindowValue, _ xShape: Shape, _ p: ConvParams, transposed: Bool, _ w: Window,
                             _ cout: Int, site: ReferenceSite) throws -> [Int32] {
        let cin = xShape.channels
        let (kh, kw, s, pad) = (p.kernelH, p.kernelW, p.stride, p.pad)
        var y: [Int32] = []
        y.reserveCapacity(cout * w.rows.count * w.cols.count)
        // Taps that reach the input window, per output row and column.
        func taps(_ out: Int, _ k: Int, _ window: Range<Int>) -> [(tap: Int, at: Int)] {
            var result: [(Int, Int)] = []
            for u in 0..<k {
                if transposed {
                    let t = out + pad - u
                    guard t >= 0, t % s == 0 else { continue }
                    let a = t / s
                    if window.contains(a) { result.append((u, a)) }
                } else {
                    let a = out * s - pad + u
                    if window.contains(a) { result.append((u, a)) }
                }
            }
            return result
        }
        let rowTaps = w.rows.map { taps($0, kh, x.window.rows) }
        let colTaps = w.cols.map { taps($0, kw, x.window.cols) }
        for o in 0..<cout {
            for (ri, _) in w.rows.enumerated() {
                for (ci, _) in w.cols.enumerated() {
                    var acc = Int64(p.bias[o])
                    for c in 0..<cin {
                        let base = transposed ? (c * cout + o) * kh : (o * cin + c) * kh
                        for (u, a) in rowTaps[ri] {
                            for (v, b) in colTaps[ci] {
                                acc += Int64(p.weights[(base + u) * kw + v]) * Int64(x.at(c, a, b))
                            }
                        }
                    }
                    let index = (o * w.rows.count + ri) * w.cols.count + ci
                    y.append(Int32(try site.int32(acc, "b[o] + Σ w·x", index: index)))
                }
            }
        }
        return y
    }
}
