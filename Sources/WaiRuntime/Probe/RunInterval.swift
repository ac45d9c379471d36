/// When one run of a prepared graph was inside the plugin's `graph_run`, in nanoseconds on
/// the monotonic clock (`monotonicNanoseconds`, one clock for every process of the machine).
/// The probe's concurrent rounds count only when runs' intervals intersect
/// (docs/probe.md §1 `repetition`).
public struct RunInterval: Sendable, Equatable {
    public var start: UInt64
    public var end: UInt64

    public init(start: UInt64, end: UInt64) {
        self.start = start; self.end = end
    }

    /// True when the two share a stretch of time; intervals that only touch do not.
    public func intersects(_ other: RunInterval) -> Bool {
        max(start, other.start) < min(end, other.end)
    }

    /// `reported` (stamped by the unit worker around the plugin call) when it lies inside
    /// `bracket` (stamped by the host before the request went out and after its reply came
    /// back), else nil: the worker shares its address space with the plugin, so a stamp
    /// outside the host's own bracket is not believed, and one inside cannot claim an
    /// overlap the host's brackets rule out.
    public static func checked(_ reported: RunInterval, within bracket: RunInterval) -> RunInterval? {
        guard reported.start <= reported.end, bracket.start <= reported.start, reported.end <= bracket.end else {
            return nil
        }
        return reported
    }
}

/// A run's outputs and when the plugin ran it (nil when that is not known).
public struct TimedRun: Sendable {
    public var outputs: [TensorValue]
    public var interval: RunInterval?

    public init(outputs: [TensorValue], interval: RunInterval?) {
        self.outputs = outputs; self.interval = interval
    }
}

/// How runs of one concurrent round overlapped in time.
enum RunOverlap {
    /// The most runs in flight at one instant: 0 when no interval is known, 1 when none
    /// intersects another. Unknown (nil) and empty intervals take part in nothing.
    static func mostAtOnce(_ intervals: [RunInterval?]) -> Int {
        // A sweep over the ends: at equal times an end comes before a start, so intervals
        // that only touch are never counted together.
        var events: [(time: UInt64, delta: Int)] = []
        for case let i? in intervals where i.start < i.end {
            events.append((i.start, 1))
            events.append((i.end, -1))
        }
        events.sort { $0.time != $1.time ? $0.time < $1.time : $0.delta < $1.delta }
        var now = 0, most = 0
        for e in events {
            now += e.delta
            most = max(most, now)
        }
        return most
    }

    /// True when at least two runs' intervals intersect.
    static func overlapped(_ intervals: [RunInterval?]) -> Bool { mostAtOnce(intervals) >= 2 }
}
