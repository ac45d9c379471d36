/// Inverse GDN on the convolutions' design (docs/gpu-kernels.md §8), planned once for both
/// GPU backends: `n = beta + gamma · sq` is a 1×1 convolution of the squares, dispatched per
/// weight window of 8-channel groups over tiles of 512 positions × 8 channels, 64
/// invocations per work group, each 8 adjacent positions × 8 channels.
package struct GDNTiling {
    /// §8: a tile is 512 positions of the plane, 8 adjacent ones per invocation.
    package static let tilePositions = 512, workGroup = ConvPhases.workGroup
    /// One output channel's gamma row per 8-channel group and input channel: 8 int32.
    package static let groupRowBytes = 32

    package let channels: Int
    package let groups: Int
    package let tiles: Int

    package init(channels: Int, plane: Int) {
        self.channels = channels
        groups = (channels + ConvPhases.channels - 1) / ConvPhases.channels
        tiles = (plane + Self.tilePositions - 1) / Self.tilePositions
    }

    /// Bytes of one group's gamma: a row of 8 int32 per input channel.
    package var groupBytes: Int { channels * Self.groupRowBytes }

    /// The groups split into windows of at most `limit` bytes (a group larger than the limit
    /// is a window of its own that does not fit: read through the storage / global view).
    package func windows(limit: Int) -> [(first: Int, count: Int, fits: Bool)] {
        ConvPhases.windows(groups: groups, groupBytes: groupBytes, limit: limit)
    }

    /// Invocations of a window's dispatch.
    package func items(groups count: Int) -> Int { count * tiles * Self.workGroup }

    /// A window's gamma as [group − first][k][8 channels] (gamma[o][k], 0 past the channels).
    package func gamma(_ g: InverseGDNSpec, first: Int, count: Int) -> [Int32] {
        let c = channels, lanes = ConvPhases.channels
        var out = [Int32](repeating: 0, count: count * c * lanes)
        for gl in 0..<count {
            for l in 0..<lanes {
                let o = (first + gl) * lanes + l
                guard o < c else { break }
                for k in 0..<c { out[(gl * c + k) * lanes + l] = g.gamma[o * c + k] }
            }
        }
        return out
    }

    /// beta padded with zeros to whole groups.
    package func beta(_ g: InverseGDNSpec) -> [Int32] {
        g.beta + [Int32](repeating: 0, count: groups * ConvPhases.channels - channels)
    }
}
