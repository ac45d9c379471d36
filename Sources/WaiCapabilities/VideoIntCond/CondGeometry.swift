/// A P-frame's sizes (docs/capabilities/video_int_cond.md §3): the frame extended to a
/// multiple of 64, so that z (1/64), y (1/16) and the context (1/4) tile it exactly and every
/// graph's inputs meet at equal sizes (concat needs equal heights and widths).
public struct CondGeometry: Equatable, Sendable {
    public static let contextFactor = 4
    public static let latentFactor = 16
    public static let hyperFactor = 64

    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) { self.width = width; self.height = height }

    /// z: ⌈H/64⌉ × ⌈W/64⌉.
    public var hyperHeight: Int { (height + Self.hyperFactor - 1) / Self.hyperFactor }
    public var hyperWidth: Int { (width + Self.hyperFactor - 1) / Self.hyperFactor }
    /// y: 4·zh × 4·zw.
    public var latentHeight: Int { 4 * hyperHeight }
    public var latentWidth: Int { 4 * hyperWidth }
    /// The context C: 16·zh × 16·zw.
    public var contextHeight: Int { 16 * hyperHeight }
    public var contextWidth: Int { 16 * hyperWidth }
    /// The extended frame the graphs read and write: 64·zh × 64·zw.
    public var paddedHeight: Int { 64 * hyperHeight }
    public var paddedWidth: Int { 64 * hyperWidth }
}
