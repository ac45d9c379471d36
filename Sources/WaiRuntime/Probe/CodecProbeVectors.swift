/// The decode stage's whole-codec decodes (docs/probe.md, stage `decode`): graph runs of a
/// real payload's decode, made by the layer that holds the codecs. The probe is host code and
/// imports no codec; WaiCapabilities gives int_hyper's (`IntHyperProbeVector.probeVectors`)
/// to every host made with `BackendHost(configuration:)`.
public struct CodecProbeVectors: Sendable {
    public var make: @Sendable () throws -> [ProbeCase]

    public init(_ make: @escaping @Sendable () throws -> [ProbeCase]) { self.make = make }

    /// No codec: the decode stage runs the built-in synthesis vector alone.
    public static let none = CodecProbeVectors { [] }
}
