// The one median every timing in the project reports (the probe's ranking, `waihost bench`,
// `waihost run-graph --runs`, the isolation benchmark): medians, not means, because one run
// that a shared machine's neighbour slowed must not move the figure.

extension Collection where Element: BinaryFloatingPoint {
    /// The middle value, or the mean of the two middle ones for an even count; nil when empty.
    public var median: Element? {
        guard !isEmpty else { return nil }
        let s = sorted()
        let mid = s.count / 2
        return s.count % 2 == 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2
    }
}
