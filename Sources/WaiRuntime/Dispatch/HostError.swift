/// Errors of BackendHost.run and unit selection, each naming what it is about.
public enum HostError: Error, Equatable, CustomStringConvertible {
    case invalidSelection(text: String, reason: String)
    /// The selection names no unit that exists; `available` lists the selectors that do.
    case noSuchUnit(selection: String, available: [String])
    /// The plugin file's content differs from what was probed.
    case pluginChanged(path: String)
    /// The unit the plugin now reports is not the one that was probed.
    case unitChanged(selector: String, reason: String)
    /// The accepted unit failed to prepare or run this graph.
    case runFailed(selector: String, reason: String)

    public var description: String {
        switch self {
        case let .invalidSelection(text, reason):
            return "invalid unit selection \"\(text)\": \(reason) (use best, reference, cpu, gpu, other, NAME or NAME:INDEX)"
        case let .noSuchUnit(selection, available):
            let list = available.isEmpty ? "no units exist (no plugin loaded); 'reference' always exists"
                                         : "units that exist: " + available.joined(separator: ", ") + ", reference"
            return "no unit matches \"\(selection)\"; \(list)"
        case let .pluginChanged(path):
            return "\(path) changed since it was probed; run `waihost probe` again"
        case let .unitChanged(selector, reason):
            return "unit \(selector) changed since it was probed (\(reason)); run `waihost probe` again"
        case let .runFailed(selector, reason):
            return "unit \(selector) failed to run the graph: \(reason)"
        }
    }
}
