import WaiSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one JSON style of every `--json` output (docs/cli.md, "JSON output"): one object,
/// snake_case keys, sorted, and a `schema` field naming the object's kind and version.
enum JSON {
    /// Pretty, key-sorted JSON text of a value, without a schema (files such as --report's).
    static func text<T: Encodable>(_ value: T) throws -> String {
        try JSONCoding.text(value)
    }

    /// The value's object with `"schema": "waihost.KIND/VERSION"` added.
    static func report<T: Encodable>(_ value: T, schema: Schema) throws -> String {
        try text(Stamped(schema: schema.id, value: value))
    }

    /// One line (for JSON-lines streams such as the relay's).
    static func line<T: Encodable>(_ value: T, schema: Schema) throws -> String {
        try JSONCoding.text(Stamped(schema: schema.id, value: value), pretty: false)
    }

    /// Encodes the value's own keys, then `schema` into the same object.
    private struct Stamped<T: Encodable>: Encodable {
        var schema: String
        var value: T
        enum Key: String, CodingKey { case schema }
        func encode(to encoder: Encoder) throws {
            try value.encode(to: encoder)
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(schema, forKey: .schema)
        }
    }
}

/// The kinds of object `--json` prints; each version changes only when a field changes
/// meaning or goes away (new fields do not change it).
enum Schema: String, CaseIterable {
    case probe, probeList = "probe-list", probeUnit = "probe-unit", runGraph = "run-graph", encode, decode, bench
    case videoEncode = "video-encode", videoDecode = "video-decode"
    case makeModel = "make-model", makePicture = "make-picture", seal, keygen, version, replay
    case relay, relayWithheld = "relay-withheld", relayEnded = "relay-ended", auditVerify = "audit-verify"
    case auditServe = "audit-serve", error
    /// Not printed: the `latents.json` of `decode --latents` (docs/capabilities/int_hyper.md §8.1).
    case latents

    var version: Int { 1 }
    var id: String { "waihost.\(rawValue)/\(version)" }
}

/// `{"schema":"waihost.error/1","error":{"code":…,"message":…,"command":…}}`: an error
/// under `--json`, on standard output, with the same exit status as without.
struct ErrorReport: Encodable {
    struct Body: Encodable {
        var code: ErrorCode
        var message: String
        var command: String?
    }
    var error: Body

    init(_ code: ErrorCode, message: String, command: [String]) {
        error = Body(code: code, message: message, command: command.isEmpty ? nil : command.joined(separator: " "))
    }

    var text: String {
        (try? JSON.report(self, schema: .error))
            ?? "{\"error\":{\"code\":\"failure\",\"message\":\"the error could not be encoded\"},\"schema\":\"\(Schema.error.id)\"}"
    }
}
