/// Where a verdict on a unit was reached: one of the probe's stages, or a check outside the
/// probe suite (docs/probe.md). The raw values are the spelling in reports, the probe cache
/// and the JSON of the CLI, the C API and the Python binding.
public enum VerdictStage: String, CaseIterable, Codable, Sendable {
    // The probe's stages, spelled as `ProbeStage`.
    case semantics, arithmetic, widths, parameters, channels, decode, repetition, scale
    /// Speed measurement on the calibration graph, whose outputs are checked too.
    case calibration
    /// A spot-checked run after acceptance that differed (docs/probe.md, runtime demotion).
    case runtime
    /// Per-model qualification of a unit on the graphs of a model set.
    case qualification
    /// `waihost replay` / a probe dump re-run against its recorded reference.
    case replay

    public init(_ stage: ProbeStage) {
        // Exhaustive, so a new probe stage cannot be left without its verdict stage.
        switch stage {
        case .semantics: self = .semantics
        case .arithmetic: self = .arithmetic
        case .widths: self = .widths
        case .parameters: self = .parameters
        case .channels: self = .channels
        case .decode: self = .decode
        case .repetition: self = .repetition
        case .scale: self = .scale
        }
    }

    /// The probe stage, when the verdict came from one.
    public var probeStage: ProbeStage? { ProbeStage(rawValue: rawValue) }
}
