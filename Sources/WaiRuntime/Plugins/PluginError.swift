/// Why a backend plugin could not be loaded or why one of its calls failed. Every case
/// names the plugin file; calls into the plugin carry the ABI status name and the
/// plugin's own message.
public enum PluginError: Error, Equatable, CustomStringConvertible {
    case unreadableDirectory(path: String, reason: String)
    case unreadableFile(path: String, reason: String)
    case notELF(path: String)
    case dlopenFailed(path: String, dlerror: String)
    case missingEntry(path: String, symbol: String)
    /// The entry point answered with a status other than ok (an ABI mismatch among them).
    case entryRefused(path: String, status: String, message: String)
    /// The table the plugin returned is not one this host can use.
    case badTable(path: String, reason: String)
    case callFailed(path: String, call: String, status: String, message: String)
    case badUnit(path: String, unit: Int, reason: String)
    /// Inputs or outputs of a run do not match the prepared graph.
    case runMismatch(path: String, reason: String)
    /// A graph value that the ABI's fixed-width fields cannot carry.
    case graphNotRepresentable(reason: String)

    public var description: String {
        switch self {
        case let .unreadableDirectory(path, reason):
            return "plugin folder \(path) cannot be read: \(reason)"
        case let .unreadableFile(path, reason):
            return "\(path): cannot be read: \(reason)"
        case let .notELF(path):
            return "\(path): not an ELF shared object"
        case let .dlopenFailed(path, dlerror):
            return "\(path): dlopen failed: \(dlerror)"
        case let .missingEntry(path, symbol):
            return "\(path): no entry point: symbol \(symbol) is not exported"
        case let .entryRefused(path, status, message):
            return "\(path): refused ABI negotiation (\(status)): \(message.isEmpty ? "no message" : message)"
        case let .badTable(path, reason):
            return "\(path): unusable function table: \(reason)"
        case let .callFailed(path, call, status, message):
            return "\(path): \(call) failed (\(status)): \(message.isEmpty ? "no message" : message)"
        case let .badUnit(path, unit, reason):
            return "\(path): unit \(unit): \(reason)"
        case let .runMismatch(path, reason):
            return "\(path): \(reason)"
        case let .graphNotRepresentable(reason):
            return "graph cannot be handed to a backend: \(reason)"
        }
    }
}
