import WaiHost
import WaiHostCAPI
#if canImport(Glibc)
import Glibc
#endif

/// A failure on its way out through the C boundary: the status and the one line the
/// caller's message buffer receives (docs/c-api.md §4).
struct CAPIFailure: Error {
    var status: waihost_status
    var message: String

    init(_ status: waihost_status, _ message: String) {
        self.status = status; self.message = message
    }

    /// The status a host error stands for; `phase` is what the call was doing, for the
    /// errors whose meaning depends on it (a file error while loading the model set is
    /// the model set's).
    init(_ error: Error, phase: Phase) {
        message = "\(error)"
        switch error {
        case let e as CAPIFailure: self = e
        case let e as HostError:
            switch e {
            case .invalidSelection: status = WAIHOST_ERR_INVALID_ARGUMENT
            case .noSuchUnit: status = WAIHOST_ERR_NO_SUCH_UNIT
            case .pluginChanged, .unitChanged, .runFailed: status = WAIHOST_ERR_UNIT_FAILED
            }
        case is PluginError: status = WAIHOST_ERR_UNIT_FAILED
        case is ModelSetError, is ModelContainerError: status = WAIHOST_ERR_MODEL_SET
        case is IntHyperPayloadError, is CapabilityError, is EnvelopeError, is RansDecodingError,
             is FrequencyTableError:
            status = WAIHOST_ERR_PAYLOAD
        case is FileError: status = phase == .modelSet ? WAIHOST_ERR_MODEL_SET : WAIHOST_ERR_IO
        default:
            switch phase {
            case .modelSet: status = WAIHOST_ERR_MODEL_SET
            case .payload: status = WAIHOST_ERR_PAYLOAD
            case .other: status = WAIHOST_ERR_FAILED
            }
        }
    }

    enum Phase { case modelSet, payload, other }

    static func null(_ what: String) -> CAPIFailure {
        CAPIFailure(WAIHOST_ERR_INVALID_ARGUMENT, "\(what) is NULL")
    }

    /// struct_size below the first version's size of the struct: the caller is broken.
    static func checkSize(_ given: Int, _ name: String, minimum: Int) throws {
        guard given >= minimum else {
            throw CAPIFailure(WAIHOST_ERR_INVALID_ARGUMENT,
                              "\(name).struct_size is \(given), at least \(minimum) expected (set it to sizeof(\(name)))")
        }
    }
}

/// Runs an exported function's body so that no Swift error crosses into C: a thrown
/// error becomes its status, and its text goes into the caller's buffer.
func guarded(_ msg: UnsafeMutablePointer<CChar>?, _ cap: Int, phase: CAPIFailure.Phase = .other,
             _ body: () throws -> Void) -> waihost_status {
    do {
        try body()
        writeMessage("", msg, cap)
        return WAIHOST_OK
    } catch {
        let f = CAPIFailure(error, phase: phase)
        writeMessage(f.message, msg, cap)
        return f.status
    }
}

/// NUL-terminated, truncated to `cap - 1` bytes at a UTF-8 character boundary.
func writeMessage(_ text: String, _ msg: UnsafeMutablePointer<CChar>?, _ cap: Int) {
    guard let msg, cap > 0 else { return }
    var bytes = Array(text.utf8.prefix(cap - 1))
    // Drop a cut multi-byte character rather than hand out invalid UTF-8.
    if bytes.count < text.utf8.count {
        while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
        if let last = bytes.last, last & 0x80 != 0 { bytes.removeLast() }
    }
    bytes.withUnsafeBufferPointer { b in
        if let base = b.baseAddress { memcpy(msg, base, b.count) }
    }
    msg[bytes.count] = 0
}

/// A C string argument that may be NULL.
func optionalString(_ p: UnsafePointer<CChar>?) -> String? {
    p.map { String(cString: $0) }
}
