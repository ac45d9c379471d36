/// The constants and the one-symbol steps of docs/entropy-coding.md §4, shared by the
/// encoder and the decoder so both sides read the same arithmetic.
enum RansCore {
    /// Lower bound of the normalised state interval [L, 256·L).
    static let lowerBound: UInt32 = 1 << 23
    /// Bytes of the flushed state at the head of a stream (§5).
    static let stateByteCount = 4
    /// Nibble symbols of the bypass (§3): precision 4, frequency 1.
    static let nibblePrecision: UInt32 = 4
}

/// One coded symbol as the coder sees it: start and frequency at a precision.
struct RansSymbol {
    var start: UInt32
    var frequency: UInt32
    var precision: UInt32
}
