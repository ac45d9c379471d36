// docs/integer-ops.md §4.10, written from the formulas. Separate from ReferenceKernels'
// file because the warp is the one op that is not spatially local: it is evaluated over an
// output window (the whole plane for the interpreter, a spot check's window for the region
// engine) from the flow of that window and the part of the volume those flows reach.

extension ReferenceKernels {
    /// y[c][i][j] = rnd(Σ wz·wy·wx · v[z·C + c][y][x], 3F) for (i, j) in rows × cols.
    /// `v` is the (S·C)×H×W volume's window `vWindow` (nil: the whole plane); `flow` is
    /// 3 × rows × cols (the window's flow). A sample outside `vWindow` is an error: the
    /// window must hold `warpReach` of the same flow.
    static func warp(_ v: [Int32], _ vShape: Shape, vWindow: Window? = nil, flow: [Int32], _ p: WarpParams,
                     rows: Range<Int>, cols: Range<Int>, site: ReferenceSite) throws -> [Int32] {
        let (h, w, s) = (vShape.height, vShape.width, p.scales)
        let (r0, c0) = (vWindow?.rows.lowerBound ?? 0, vWindow?.cols.lowerBound ?? 0)
        let (vh, vw) = (vWindow?.rows.count ?? h, vWindow?.cols.count ?? w)
        let c = vShape.channels / s
        let f = Int64(p.fracBits), e = Int64(1) << f
        let shift = 3 * f
        let bias = IntegerMath.roundingBias(shift)
        let (nr, nc) = (rows.count, cols.count)
        let plane = nr * nc
        var y = [Int32](repeating: 0, count: c * plane)
        let maxX = try site.int32(Int64(w - 1) * e, "(W − 1)·2^F", index: 0)
        let maxY = try site.int32(Int64(h - 1) * e, "(H − 1)·2^F", index: 0)
        let maxZ = Int64(s - 1) * e
        for (ii, i) in rows.enumerated() {
            for (jj, j) in cols.enumerated() {
                let pos = ii * nc + jj
                let index = i * w + j
                let ux = try site.int32(Int64(j) * e + Int64(flow[pos]), "j·2^F + dx", index: index)
                let uy = try site.int32(Int64(i) * e + Int64(flow[plane + pos]), "i·2^F + dy", index: index)
                // Clamp the coordinate before splitting it: border padding on every axis.
                let bx = IntegerMath.clamp(ux, 0, maxX)
                let by = IntegerMath.clamp(uy, 0, maxY)
                let bz = IntegerMath.clamp(Int64(flow[2 * plane + pos]), 0, maxZ)
                let x0 = IntegerMath.floorShift(bx, f), y0 = IntegerMath.floorShift(by, f), z0 = IntegerMath.floorShift(bz, f)
                let (ax, ay, az) = (bx - x0 * e, by - y0 * e, bz - z0 * e)
                // The eight corners (r, q, p) ∈ {0, 1}³: index and weight of each axis.
                let xs = (Int(x0), min(Int(x0) + 1, w - 1)), ys = (Int(y0), min(Int(y0) + 1, h - 1))
                let zs = (Int(z0), min(Int(z0) + 1, s - 1))
                guard xs.0 >= c0, xs.1 < c0 + vw, ys.0 >= r0, ys.1 < r0 + vh else {
                    throw GraphError.node(index: site.node, op: site.op, problem:
                        "warp at (\(i), \(j)) samples rows \(ys.0)…\(ys.1), cols \(xs.0)…\(xs.1), outside the volume window \(vWindow.map { "\($0)" } ?? "")")
                }
                let wx = (e - ax, ax), wy = (e - ay, ay), wz = (e - az, az)
                for ch in 0..<c {
                    var acc: Int64 = 0
                    for corner in 0..<8 {
                        let (r, q, pp) = (corner >> 2, (corner >> 1) & 1, corner & 1)
                        let weight = (r == 0 ? wz.0 : wz.1) * (q == 0 ? wy.0 : wy.1) * (pp == 0 ? wx.0 : wx.1)
                        let zi = r == 0 ? zs.0 : zs.1, yi = q == 0 ? ys.0 : ys.1, xi = pp == 0 ? xs.0 : xs.1
                        let sample = Int64(v[((zi * c + ch) * vh + yi - r0) * vw + xi - c0])
                        acc = try site.int32(acc + weight * sample, "partial sum of acc", index: ch * h * w + index)
                    }
                    _ = try site.int32(acc + bias, "acc + 2^(3F−1)", index: ch * h * w + index)
                    y[ch * plane + pos] = Int32(IntegerMath.rnd(acc, shift))
                }
            }
        }
        return y
    }

    /// The smallest window of the volume that `warp` reads for these flows at rows × cols:
    /// every corner sample (x0 and x1, y0 and y1) after the border clamp, as `warp` forms
    /// them. Computed from flow values, so a spot check reads only what its windows' flows
    /// reach (docs/probe.md §7). Empty for an empty window.
    static func warpReach(flow: [Int32], _ vShape: Shape, _ p: WarpParams, rows: Range<Int>, cols: Range<Int>) -> Window {
        let (h, w) = (vShape.height, vShape.width)
        let f = Int64(p.fracBits), e = Int64(1) << f
        let (maxX, maxY) = (Int64(w - 1) * e, Int64(h - 1) * e)
        let (nc, plane) = (cols.count, rows.count * cols.count)
        var (rLo, rHi, cLo, cHi) = (Int.max, Int.min, Int.max, Int.min)
        for (ii, i) in rows.enumerated() {
            for (jj, j) in cols.enumerated() {
                let pos = ii * nc + jj
                let bx = IntegerMath.clamp(Int64(j) * e + Int64(flow[pos]), 0, maxX)
                let by = IntegerMath.clamp(Int64(i) * e + Int64(flow[plane + pos]), 0, maxY)
                let x0 = Int(IntegerMath.floorShift(bx, f)), y0 = Int(IntegerMath.floorShift(by, f))
                cLo = min(cLo, x0); cHi = max(cHi, min(x0 + 1, w - 1))
                rLo = min(rLo, y0); rHi = max(rHi, min(y0 + 1, h - 1))
            }
        }
        if rLo > rHi { return Window(rows: 0..<0, cols: 0..<0) }
        return Window(rows: rLo..<(rHi + 1), cols: cLo..<(cHi + 1))
    }
}
