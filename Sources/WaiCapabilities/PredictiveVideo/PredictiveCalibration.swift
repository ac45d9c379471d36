/// What the seeded int_motion and int_cond sets are calibrated on (each spec's §4): N and M
/// checked, the sample picture as the reference and, as the current frame, the picture moved
/// 2 columns left and 1 row up (edges repeated).
extension SampleModelGenerator {
    static func predictiveCalibration(n: Int, m: Int) throws -> (reference: TensorValue, current: TensorValue) {
        guard channelRange.contains(n), channelRange.contains(m) else {
            throw GeneratorError(message: "N = \(n) and M = \(m) must each be in \(channelRange.lowerBound)…\(channelRange.upperBound)")
        }
        let size = calibrationSize
        let picture = try SamplePicture.make(width: size, height: size)
        let ref = IntHyperEncoder.paddedPlanes(picture, height: size, width: size)
        let current = TensorValue(shape: ref.shape, values: (0..<ref.values.count).map { k in
            let c = k / (size * size), i = (k / size) % size, j = k % size
            return ref.values[(c * size + min(i + 1, size - 1)) * size + min(j + 2, size - 1)]
        })
        return (ref, current)
    }
}
