// docs/integer-ops.md §4.10, written from the formulas. Separate from ReferenceKernels'
// file because the warp is the one op that is not spatially local: it is evaluated over an
// output window (the whole plane for the interpreter, a spot check's window for the region
// engine) from the whole volume and the flow of that window alone.

extension ReferenceKernels {
    /// y[c][i][j] = rnd(Σ wz·wy·wx · v[z·C + c][y][x], 3F) for (i, j) in rows × cols.
    /// `v` is the whole (S·C)×H×W volume; `flow` is 3 × rows × cols (the window's flow).
    static func warp(_ v: [Int32], _ vShape: Shape, flow: [Int32], _ p: WarpParams,
                     rows: Range<Int>, cols: Range<Int>, site: ReferenceSite) throws -> [Int32] {
        let (h, w, s) = (vShape.height, vShape.width, p.scales)
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
                let wx = (e - ax, ax), wy = (e - ay, ay), wz = (e - az, az)
                for ch in 0..<c {
                    var acc: Int64 = 0
                    for corner in 0..<8 {
                        let (r, q, pp) = (corner >> 2, (corner >> 1) & 1, corner & 1)
                        let weight = (r == 0 ? wz.0 : wz.1) * (q == 0 ? wy.0 : wy.1) * (pp == 0 ? wx.0 : wx.1)
                        let zi = r == 0 ? zs.0 : zs.1, yi = q == 0 ? ys.0 : ys.1, xi = pp == 0 ? xs.0 : xs.1
                        let sample = Int64(v[((zi * c + ch) * h + yi) * w + xi])
                        acc = try site.int32(acc + weight * sample, "partial sum of acc", index: ch * h * w + index)
                    }
                    _ = try site.int32(acc + bias, "acc + 2^(3F−1)", index: ch * h * w + index)
                    y[ch * plane + pos] = Int32(IntegerMath.rnd(acc, shift))
                }
            }
        }
        return y
    }
}
