/// Whether the probe saw a unit's prepared graphs actually run at the same time
/// (docs/probe.md §1 `repetition`, §3 "Concurrent runs"). Releasing threads together does
/// not make runs overlap on a loaded machine; a round counts only when at least two runs'
/// intervals inside the plugin intersect.
public enum ConcurrencyState: String, Codable, Sendable {
    /// Every concurrent round the probe needs overlapped: runs on the unit may overlap.
    case verified
    /// Not enough overlapping rounds within the bound: the unit was never shown exact under
    /// concurrent runs, so the host runs its graphs one at a time.
    case unverified
}

/// What the concurrent rounds of the repetition stage saw; part of an accepted verdict.
public struct ConcurrencyCheck: Codable, Sendable, Equatable, CustomStringConvertible {
    public var state: ConcurrencyState
    /// Concurrent rounds run, retries included.
    public var rounds: Int
    /// Rounds in which at least two runs overlapped.
    public var overlappingRounds: Int
    /// The most runs inside the plugin at one instant, over every round.
    public var mostAtOnce: Int

    public init(state: ConcurrencyState, rounds: Int, overlappingRounds: Int, mostAtOnce: Int) {
        self.state = state; self.rounds = rounds; self.overlappingRounds = overlappingRounds; self.mostAtOnce = mostAtOnce
    }

    public var description: String { "concurrency \(summary)" }

    /// "verified: 3 of 4 concurrent rounds overlapped (at most 9 runs at once)".
    public var summary: String {
        let seen = "\(overlappingRounds) of \(rounds) concurrent round\(rounds == 1 ? "" : "s") overlapped"
            + (mostAtOnce > 0 ? " (at most \(mostAtOnce) run\(mostAtOnce == 1 ? "" : "s") at once)" : "")
        switch state {
        case .verified: return "verified: \(seen)"
        case .unverified: return "unverified: \(seen), \(ConcurrentRounds.needed) needed; the host runs its graphs one at a time"
        }
    }

    enum CodingKeys: String, CodingKey {
        case state, rounds, overlappingRounds = "overlapping_rounds", mostAtOnce = "most_at_once"
    }
}

/// The concurrent rounds of the repetition stage and their bound: `needed` overlapping
/// rounds; a round whose runs did not overlap is run again, at most `extraRounds` times
/// and not after `extraSeconds` of such repeats. Every round's runs are compared, whether
/// they overlapped or not.
enum ConcurrentRounds {
    static let needed = ProbeSuite.concurrentRounds
    static let extraRounds = 6
    static let extraSeconds = 5.0
    /// Runs of one prepared graph in one round at most: a short graph runs again while the
    /// long ones are still running, up to this many times.
    static let runsPerThread = 8

    /// The threads of one round: each repeats its run until every thread has finished one.
    final class Progress: @unchecked Sendable {
        private let lock = Mutex()
        private let threads: Int
        private var finished = 0

        init(threads: Int) { self.threads = threads }

        private var everyThreadRan: Bool { lock.withLock { finished >= threads } }

        /// Calls `body` (one run; false: stop, it failed) at least once, and again while
        /// another thread has not finished its first run, at most `limit` times.
        func repeatUntilEveryThreadRan(limit: Int = ConcurrentRounds.runsPerThread, _ body: () -> Bool) {
            var runs = 0
            var more = true
            while more {
                more = body()
                runs += 1
                if runs == 1 { lock.withLock { finished += 1 } }
                if runs >= limit || everyThreadRan { more = false }
            }
        }
    }

    enum Round {
        /// The round's runs all matched; when each was inside the plugin.
        case ran([RunInterval?])
        case rejected(ProbeOutcome)
    }

    enum Outcome {
        case checked(ConcurrencyCheck)
        case rejected(ProbeOutcome)
    }

    /// Runs rounds (numbered from 1) until `needed` overlapped or the bound is reached.
    static func run(needed: Int = needed, extraRounds: Int = extraRounds, extraSeconds: Double = extraSeconds,
                    now: () -> Double = monotonicSeconds, round: (Int) throws -> Round) rethrows -> Outcome {
        var rounds = 0, overlapping = 0, most = 0
        var repeatsStarted: Double?
        while overlapping < needed {
            if rounds >= needed {
                // A repeat: only within the bound.
                if rounds - needed >= extraRounds { break }
                let t = now()
                if let s = repeatsStarted, t - s >= extraSeconds { break }
                if repeatsStarted == nil { repeatsStarted = t }
            }
            rounds += 1
            switch try round(rounds) {
            case .rejected(let r):
                return .rejected(r)
            case .ran(let intervals):
                let m = RunOverlap.mostAtOnce(intervals)
                most = max(most, m)
                if m >= 2 { overlapping += 1 }
            }
        }
        return .checked(ConcurrencyCheck(state: overlapping >= needed ? .verified : .unverified, rounds: rounds,
                                         overlappingRounds: overlapping, mostAtOnce: most))
    }
}
