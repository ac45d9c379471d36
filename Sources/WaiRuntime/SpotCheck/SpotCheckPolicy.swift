/// How often a graph run dispatched to a plugin unit is spot-checked against the reference
/// (docs/probe.md §7). `WAIHOST_SPOT_CHECK`, `HostConfiguration.spotCheck`, and
/// `--spot-check` on the CLI spell it `every`, `off` or `sample:N`.
public enum SpotCheckPolicy: Equatable, Sendable, CustomStringConvertible {
    /// Every run (the default).
    case everyRun
    /// The first run on each unit, then one run in N drawn at random (not every N-th: a
    /// plugin that counts its runs must not know which ones are looked at).
    case sampled(every: Int)
    /// Never: the probe's verdict alone decides.
    case off

    public init(parsing text: String) throws {
        switch text {
        case "every": self = .everyRun
        case "off": self = .off
        default:
            guard text.hasPrefix("sample:"), let n = Int(text.dropFirst("sample:".count)), n >= 1 else {
                throw SpotCheckPolicyError(text: text)
            }
            self = n == 1 ? .everyRun : .sampled(every: n)
        }
    }

    public var description: String {
        switch self {
        case .everyRun: return "every"
        case .sampled(let n): return "sample:\(n)"
        case .off: return "off"
        }
    }

    /// Whether the `run`-th run (0-based) on a unit is checked; `draw` is a fresh value of
    /// the host's unpredictable generator (the one that places the interior windows).
    func checks(run: Int, draw: UInt64) -> Bool {
        switch self {
        case .everyRun: return true
        case .sampled(let n): return run == 0 || draw % UInt64(n) == 0
        case .off: return false
        }
    }
}

public struct SpotCheckPolicyError: Error, Equatable, CustomStringConvertible {
    public var text: String
    public var description: String {
        "invalid spot-check policy \"\(text)\": use every, off or sample:N with N ≥ 1"
    }
}
