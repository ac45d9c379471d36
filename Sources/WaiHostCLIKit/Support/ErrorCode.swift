import WaiHost
import Relay
import Audit

/// What kind of error a command ended with: the `code` of a JSON error (docs/cli.md, "JSON
/// output"), a closed set so scripts can branch on it.
enum ErrorCode: String, Encodable, CaseIterable {
    /// The command line does not parse (exit status 2).
    case usage
    /// A unit selection that is malformed or names no unit.
    case unitSelection = "unit_selection"
    /// A plugin or unit failed, changed since it was probed, or its worker died.
    case unit
    /// A file that cannot be read or written, a key file refused.
    case file
    /// A model, model set or graph refused (certificate, manifest, bounds).
    case model
    /// A payload, envelope or entropy stream that does not decode.
    case payload
    /// A picture that cannot be read or written (not RGB8, too large).
    case picture
    /// An HLS stream, playlist, receipt or seal refused.
    case stream
    /// An audit bundle that does not verify, a collector or spool failure.
    case audit
    /// Anything else.
    case failure

    static func of(_ error: Error) -> ErrorCode {
        switch error {
        case is UsageError: return .usage
        case let e as CLIError: return e.code
        case let e as HostError:
            switch e {
            case .invalidSelection, .noSuchUnit: return .unitSelection
            default: return .unit
            }
        case is PluginError, is WorkerError, is WorkerDeath: return .unit
        case is FileError, is PrivateKeyFileError: return .file
        case is ModelSetError, is ModelContainerError, is GraphError, is ReferenceError, is InputContractError: return .model
        case is IntHyperPayloadError, is EnvelopeError, is CapabilityError, is RansDecodingError, is FrequencyTableError,
             is RansLaneError, is VideoPayloadError: return .payload
        case is ImageError, is Y4MError: return .picture
        case is PlaylistError, is SealError, is ReceiptError, is RevisionViolation, is OriginError, is RelaySessionError: return .stream
        case is AuditBundleError, is AcknowledgementError, is DeliveryError, is SpoolError, is StoreError: return .audit
        default: return .failure
        }
    }
}

/// A failure the CLI itself names (exit status 1), with its code.
struct CLIError: Error, CustomStringConvertible {
    var code: ErrorCode
    var message: String
    init(_ code: ErrorCode, _ message: String) { self.code = code; self.message = message }
    var description: String { message }
}
