#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The clocks every module reads. Deadlines and timings use the monotonic clock (it does not
// jump when the wall clock is set); only timestamps written into records use the wall clock.

public func monotonicSeconds() -> Double {
    let ts = now(CLOCK_MONOTONIC)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Nanoseconds on the monotonic clock: CLOCK_MONOTONIC is one clock for every process of
/// the machine, so a stamp taken in a unit worker compares with one taken in the host.
public func monotonicNanoseconds() -> UInt64 {
    let ts = now(CLOCK_MONOTONIC)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

public func monotonicMilliseconds() -> Double {
    let ts = now(CLOCK_MONOTONIC)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
}

public func wallClockSeconds() -> Double {
    let ts = now(CLOCK_REALTIME)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Milliseconds since the Unix epoch, rounded down.
public func wallClockMilliseconds() -> Int64 {
    let ts = now(CLOCK_REALTIME)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}

/// Nanoseconds since the Unix epoch (the unit of `stat`'s times).
public func wallClockNanoseconds() -> Int64 {
    let ts = now(CLOCK_REALTIME)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

private func now(_ clock: clockid_t) -> timespec {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return ts
}

/// Milliseconds on the monotonic clock, for the timings in reports.
public enum Stopwatch {
    public static func now() -> Double { monotonicMilliseconds() }

    public static func time<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = now()
        let value = try body()
        return (value, now() - start)
    }
}
