/// Stage `channels`: every op at channel counts on both sides of SIMD widths and tiles
/// (1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 127, 129, 192, 320), as input and as output
/// channels, on small planes whose width is not a multiple of 8 (a partial vector on every
/// row). Convs with many channels use 1×1 kernels or few input channels, so the reference
/// stays cheap.
enum ChannelCases {
    static let seed: UInt64 = 0x4348_414E_4E45_4C53
    static let counts = [1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 127, 129, 192, 320]
    /// Run again by the repetition stage.
    static let repeated: Set<String> = ["conv2d_1x1_c129_to_192", "conv2d_3x3_c3_to_17", "conv_transpose2d_c33_to_3",
                                        "inverse_gdn_c129", "inverse_gdn_c17"]

    static func all() throws -> [ProbeCase] {
        var rng = SplitMix64(seed: seed)
        var cases: [ProbeCase] = []
        for (i, c) in counts.enumerated() {
            let d = counts[(i + 1) % counts.count]
            cases.append(try OpGraphs.conv2d(&rng, name: "conv2d_1x1_c\(c)_to_\(d)", cin: c, cout: d, h: 3, w: 11,
                                             kernel: 1, stride: 1, pad: 0))
            cases.append(try OpGraphs.conv2d(&rng, name: "conv2d_3x3_c\(c)_to_3", cin: c, cout: 3, h: 4, w: 9,
                                             kernel: 3, stride: 1, pad: 1))
            if c != 3 {
                cases.append(try OpGraphs.conv2d(&rng, name: "conv2d_3x3_c3_to_\(c)", cin: 3, cout: c, h: 4, w: 9,
                                                 kernel: 3, stride: 1, pad: 1))
            }
            cases.append(try OpGraphs.convTranspose(&rng, name: "conv_transpose2d_c\(c)_to_3", cin: c, cout: 3, outH: 5, outW: 9))
            if c != 3 {
                cases.append(try OpGraphs.convTranspose(&rng, name: "conv_transpose2d_c3_to_\(c)", cin: 3, cout: c, outH: 6, outW: 10))
            }
            cases.append(try OpGraphs.inverseGDN(&rng, name: "inverse_gdn_c\(c)", channels: c, h: 2, w: 9))
            cases.append(try OpGraphs.elementwise(&rng, name: "elementwise_c\(c)", channels: c, h: 3, w: 11))
            cases.append(try OpGraphs.concat(&rng, name: "concat_c\(c)_and_\(d)", c1: c, c2: d, h: 2, w: 9))
            cases.append(try OpGraphs.depthToSpace(&rng, name: "depth_to_space_c\(c)", channels: c, h: 2, w: 5))
        }
        for i in cases.indices where repeated.contains(cases[i].name) { cases[i].repeated = true }
        return cases
    }
}
