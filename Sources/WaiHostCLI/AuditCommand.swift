// `waihost audit verify|serve`: offline verification of a bundle (docs/audit-bundle.md) and
// the collector (AuditServe.swift).
import Audit
import Relay
import Foundation

enum AuditCommand: Command {
    static let name = "audit"
    static let summary = "verify an audit bundle offline, or run the collector"
    static let help = """
        usage: waihost audit verify BUNDLE [--owner HEX] [--trust HEX]... [--json]
               waihost audit serve …   (below)

        verify checks the bundle file exactly as the collector does (docs/audit-bundle.md):
        the binding of the session key by the installation key, every record's signature, the
        sequence and hash chain, and the session record; it names the record, signature or
        chain link that fails. Exit status 0 when it verifies, 1 when it does not.

          --owner HEX   refuse a bundle not addressed to this owner key (64 hex digits)
          --trust HEX   refuse a binding by any installation key not listed (repeatable)
          --json        one JSON object: {"ok":true,…} or {"ok":false,"error":…}

        """ + "\n" + AuditServe.help

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let sub = arguments.first else { throw UsageError(message: "missing subcommand (verify or serve)") }
        let rest = Array(arguments.dropFirst())
        switch sub {
        case "verify": return try verify(rest)
        case "serve":
            if rest.contains("--help") || rest.contains("-h") { Output.out(AuditServe.help); return ExitCode.ok }
            return try AuditServe.run(rest)
        default: throw UsageError(message: "unknown subcommand \(sub) (verify or serve)")
        }
    }

    static func verify(_ arguments: [String]) throws -> Int32 {
        var args = ArgumentCursor(arguments)
        var path: String?
        var owner: Ed25519PublicKey?
        var trusted: Set<Ed25519PublicKey>?
        var json = false
        while let a = args.next() {
            switch a {
            case "--json": json = true
            case "--owner":
                guard let k = try? Ed25519PublicKey(hex: try args.value(for: a)) else {
                    throw UsageError(message: "--owner needs 64 lowercase hex digits")
                }
                owner = k
            case "--trust":
                guard let k = try? Ed25519PublicKey(hex: try args.value(for: a)) else {
                    throw UsageError(message: "--trust needs 64 lowercase hex digits")
                }
                trusted = (trusted ?? []).union([k])
            default:
                if a.hasPrefix("-") { throw UsageError(message: "unknown option \(a)") }
                guard path == nil else { throw UsageError(message: "one bundle only") }
                path = a
            }
        }
        guard let file = path else { throw UsageError(message: "missing BUNDLE") }
        guard let data = FileManager.default.contents(atPath: file) else {
            return report(json, ok: false, ["error": "cannot read \(file)"], text: "\(file): cannot read")
        }
        do {
            let v = try AuditBundle.verify([UInt8](data), owner: owner, trustedInstallationKeys: trusted)
            let fields: [String: Any] = [
                "session_id": v.sessionId, "owner": v.owner, "installation_key": v.installationKey,
                "session_key": v.sessionKey, "bundle_sha256": v.bundleSha256, "records": v.records.count,
                "acks": v.acks.count, "ad_claims": v.adClaims.count, "end_reason": v.session.endReason,
                "withheld": v.session.withheld,
            ]
            return report(json, ok: true, fields, text: """
                \(file): verified
                  session \(v.sessionId), ended \(v.session.endReason)
                  \(v.records.count) records: \(v.acks.count) acks (\(v.session.withheld) withheld), \(v.adClaims.count) ad claims, session record
                  owner \(v.owner)
                  installation key \(v.installationKey)
                  bundle sha256 \(v.bundleSha256)
                """)
        } catch {
            return report(json, ok: false, ["error": error.description], text: "\(file): does not verify: \(error)")
        }
    }

    private static func report(_ json: Bool, ok: Bool, _ fields: [String: Any], text: String) -> Int32 {
        if json {
            var f = fields
            f["ok"] = ok
            let data = (try? JSONSerialization.data(withJSONObject: f, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            Output.out(String(decoding: data, as: UTF8.self))
        } else if ok {
            Output.out(text)
        } else {
            Output.err("waihost audit verify: " + text)
        }
        return ok ? ExitCode.ok : ExitCode.failure
    }
}
