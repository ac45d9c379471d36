#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The messages between `waihost probe` and its `waihost probe-worker` children
/// (docs/probe.md, "Worker protocol"). Each worker prints exactly one JSON object on
/// stdout and exits 0; stderr carries `stage NAME` lines as it goes, so the parent knows
/// the stage when the child dies or hangs.
enum WorkerProtocol {
    static let version = 1
    static let stagePrefix = "stage "
    /// The calibration pseudo-stage, reported when a unit crashes or hangs while timed.
    static let calibrationStage = "calibration"

    /// `probe-worker --list PLUGIN`.
    struct ListReply: Codable {
        var proto: Int
        var name: String?
        var version: String?
        var units: [UnitInfo]?
        var error: String?
        enum CodingKeys: String, CodingKey { case proto = "protocol", name, version, units, error }
    }

    /// `probe-worker PLUGIN UNIT`: the outcome, or an error when the unit could not be
    /// probed at all (the plugin failed to load in the worker, the suite failed).
    struct ProbeReply: Codable {
        var proto: Int
        var outcome: ProbeOutcome?
        var error: String?
        enum CodingKeys: String, CodingKey { case proto = "protocol", outcome, error }
    }

    /// `probe-worker --speed PLUGIN UNIT`: speed, or why the calibration graph did not run.
    struct SpeedReply: Codable {
        var proto: Int
        var speed: ProbeSpeed?
        var error: String?
        enum CodingKeys: String, CodingKey { case proto = "protocol", speed, error }
    }

    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding these plain structs cannot fail; an empty object makes the parent say
        // "garbage output" rather than the worker crash.
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) -> T? {
        // The reply is the last non-empty line; a plugin that prints to stdout itself
        // must not break the protocol.
        let lines = bytes.split(separator: UInt8(ascii: "\n"))
        guard let last = lines.last(where: { !$0.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") } }) else { return nil }
        return try? JSONDecoder().decode(T.self, from: Data(last))
    }
}
