// `waihost audit verify|serve`: offline verification of a bundle (docs/audit-bundle.md) and
// the collector (AuditServe.swift).
import Audit
import Relay
import WaiHost
import Foundation

enum AuditCommand: Command {
    static let verifySpec = CommandSpec(
        name: "verify",
        summary: "check an audit bundle offline exactly as the collector does",
        description: """
            Checks the bundle file exactly as the collector does (docs/audit-bundle.md): the binding of the \
            session key by the installation key, every record's signature, the sequence and hash chain, and the \
            session record; names the record, signature or chain link that fails. Exit status 0 when it \
            verifies, 1 when it does not.
            """,
        positionals: [PositionalSpec("BUNDLE", help: "the bundle file, or - for standard input", completion: .file(["json"]))],
        options: [
            .value("owner", "HEX", help: "refuse a bundle not addressed to this owner key (64 hex digits)"),
            .repeated("trust", "HEX", help: "refuse a binding by any installation key not listed"),
            CommonOptions.json,
        ])

    static let spec = CommandSpec(
        name: "audit",
        summary: "verify an audit bundle offline, or run the collector",
        description: "verify checks a bundle as the collector does; serve runs the collector (docs/collector.md).",
        subcommands: [verifySpec, AuditServe.spec])

    enum Options {
        case verify(path: String, owner: Ed25519PublicKey?, trusted: Set<Ed25519PublicKey>?, json: Bool)
        case serve(AuditServe.Options)
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        if p.command.last == "serve" { return .serve(try AuditServe.options(p)) }
        var owner: Ed25519PublicKey?
        if let v = p.value("owner") {
            guard let k = try? Ed25519PublicKey(hex: v) else { throw p.error("--owner needs 64 lowercase hex digits") }
            owner = k
        }
        var trusted: Set<Ed25519PublicKey>?
        for v in p.values("trust") {
            guard let k = try? Ed25519PublicKey(hex: v) else { throw p.error("--trust needs 64 lowercase hex digits") }
            trusted = (trusted ?? []).union([k])
        }
        return .verify(path: p.positionals[0], owner: owner, trusted: trusted, json: p.flag("json"))
    }

    static func run(_ o: Options) throws -> Int32 {
        switch o {
        case .serve(let s): return try AuditServe.run(s)
        case let .verify(path, owner, trusted, json): return try verify(path, owner: owner, trusted: trusted, json: json)
        }
    }

    struct Verified: Encodable {
        var ok = true
        var file: String
        var sessionId: String
        var owner: String
        var installationKey: String
        var sessionKey: String
        var bundleSha256: String
        var records: Int
        var acks: Int
        var adClaims: Int
        var endReason: String
        var withheld: Int64
        enum CodingKeys: String, CodingKey {
            case ok, file, sessionId = "session_id", owner, installationKey = "installation_key", sessionKey = "session_key"
            case bundleSha256 = "bundle_sha256", records, acks, adClaims = "ad_claims", endReason = "end_reason", withheld
        }
    }

    static func verify(_ file: String, owner: Ed25519PublicKey?, trusted: Set<Ed25519PublicKey>?, json: Bool) throws -> Int32 {
        let data: [UInt8]
        if file == "-" {
            data = try LocalFile.readStandardInput(limit: 1 << 30)
        } else {
            guard let d = FileManager.default.contents(atPath: file) else { throw CLIError(.file, "\(file): cannot read") }
            data = [UInt8](d)
        }
        let v: VerifiedBundle
        do {
            v = try AuditBundle.verify(data, owner: owner, trustedInstallationKeys: trusted)
        } catch {
            throw CLIError(.audit, "\(file): does not verify: \(error)")
        }
        let r = Verified(file: file, sessionId: v.sessionId, owner: v.owner, installationKey: v.installationKey,
                         sessionKey: v.sessionKey, bundleSha256: v.bundleSha256, records: v.records.count,
                         acks: v.acks.count, adClaims: v.adClaims.count, endReason: v.session.endReason.rawValue,
                         withheld: v.session.withheld)
        if json {
            Output.out(try JSON.report(r, schema: .auditVerify))
        } else {
            Output.out("""
                \(file): verified
                  session \(v.sessionId), ended \(v.session.endReason)
                  \(v.records.count) records: \(v.acks.count) acks (\(v.session.withheld) withheld), \(v.adClaims.count) ad claims, session record
                  owner \(v.owner)
                  installation key \(v.installationKey)
                  bundle sha256 \(v.bundleSha256)
                """)
        }
        return ExitCode.ok
    }
}
