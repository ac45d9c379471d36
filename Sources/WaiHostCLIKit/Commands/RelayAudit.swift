// The audit side of `waihost relay --collector URL --owner HEX`: the recorder observes the
// session, and at its end the bundle is spooled and delivered (docs/audit-bundle.md §5).
import Audit
import Relay
import Foundation

struct AuditCLIOptions {
    var collector: String?
    var owner: Ed25519PublicKey?
    var installationKeyPath: String?
    /// How long `relay` waits at the end for the collector's acknowledgement; a bundle not
    /// acknowledged by then stays spooled and goes with the next run.
    var deliverWaitSeconds: Double = 15

    static let options: [OptionSpec] = [
        .value("collector", "URL", help: "audit the session (docs/audit-bundle.md): post its signed bundle to URL/v1/sessions (spooled until acknowledged) and CMCD event reports to URL/v1/cmcd"),
        .value("owner", "HEX", help: "the collector's owner key; its acknowledgement must verify"),
        .value("installation-key", "FILE", help: "the key that binds each session key (default: created under the cache dir, audit/installation.key)",
               completion: .file([])),
        .value("deliver-wait", "S", help: "wait up to S seconds (default 15) at the end for the collector's acknowledgement; unacknowledged bundles stay spooled and are posted on the next audited run"),
    ]

    init() {}

    init(_ p: ParsedArguments) throws(UsageError) {
        if let v = p.value("collector") {
            let lower = v.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { throw p.error("--collector needs an http(s) URL") }
            collector = v
        }
        if let v = p.value("owner") {
            guard let k = try? Ed25519PublicKey(hex: v) else { throw p.error("--owner needs 64 lowercase hex digits") }
            owner = k
        }
        installationKeyPath = p.value("installation-key")
        if let s = try p.double("deliver-wait", in: 0...86_400) { deliverWaitSeconds = s }
        if collector == nil, owner != nil || installationKeyPath != nil { throw p.error("--owner and --installation-key need --collector") }
        if collector != nil, owner == nil { throw p.error("--collector needs --owner") }
    }

    /// nil when the session is not audited.
    func start() throws -> RelayAuditing? {
        guard let collector, let owner else { return nil }
        let dir = AuditPaths.directory()
        let key = try installationKeyPath.map { try PrivateKeyFile.read(path: $0) }
            ?? InstallationKey.loadOrCreate(path: AuditPaths.installationKey(in: dir))
        let spool = try AuditSpool(root: AuditPaths.spool(in: dir), owner: owner)
        let delivery = AuditDelivery(collector: collector, owner: owner, spool: spool) { event in
            switch event {
            case .delivered(let id, let status): Output.err("waihost relay: audit bundle \(id) acknowledged (\(status.rawValue))")
            case .failed(let id, let reason, let retry):
                Output.err("waihost relay: audit bundle \(id) not delivered, retry in \(Int(retry)) s: \(Redaction.message(reason))")
            case .heldInMemory(let id, let reason):
                Output.err("waihost relay: audit bundle \(id) could not be spooled, held in memory until acknowledged: \(reason)")
            case .recovered(let id):
                Output.err("waihost relay: audit bundle \(id) recovered from the journal of a relay that ended without finishing it")
            case .unrecoverable(let id, let reason):
                Output.err("waihost relay: audit journal \(id) left in the spool, cannot be read: \(reason)")
            }
        }
        delivery.start()
        let custody = EvidenceCustody(delivery: delivery)
        var target = collector
        while target.hasSuffix("/") { target.removeLast() }
        let cmcd = CMCDSender(target: target + "/v1/cmcd")
        let recorder = try AuditRecorder(installationKey: key, owner: owner, sink: custody) { [cmcd] event in cmcd.send(event) }
        if let f = custody.journalFailure {
            Output.err("waihost relay: audit journal not written (\(f)); this session's evidence is in memory until delivered")
        }
        return RelayAuditing(recorder: recorder, custody: custody, cmcd: cmcd, waitSeconds: deliverWaitSeconds)
    }
}

struct RelayAuditing {
    let recorder: AuditRecorder
    let custody: EvidenceCustody
    let cmcd: CMCDSender
    let waitSeconds: Double
    var delivery: AuditDelivery { custody.delivery }

    /// Exit status 3: some evidence was neither acknowledged nor spooled, so it is lost when
    /// the relay exits (docs/cli.md). Spooled and unacknowledged is 0: the next run posts it.
    static let evidenceLost: Int32 = 3

    /// Ends the session's last bundle, waits for delivery; returns the exit status.
    func finish(endReason: EndReason, json: Bool) -> Int32 {
        var status = ExitCode.ok
        do {
            _ = try recorder.finish(endReason: endReason)
        } catch {
            Output.err("waihost relay: audit bundle \(recorder.sessionId) could not be signed: \(error)")
            status = Self.evidenceLost
        }
        if let f = custody.journalFailure {
            Output.err("waihost relay: audit journal stopped being written (\(f)); a crash would have lost this session's evidence")
        }
        if !delivery.waitUntilDelivered(seconds: waitSeconds) {
            let lost = delivery.heldInMemory
            for id in lost {
                if let journal = custody.intactJournal(of: id) {
                    Output.err("waihost relay: audit bundle \(id) NOT delivered and NOT spooled (the spool refused it); its journal \(journal) holds it and the next run recovers it")
                } else {
                    Output.err("waihost relay: audit bundle \(id) NOT delivered and NOT spooled (the spool refused it): its evidence is lost when the relay exits")
                }
            }
            if !lost.isEmpty { status = Self.evidenceLost }
            for id in delivery.spool.pending() {
                Output.err("waihost relay: audit bundle \(id) still spooled at \(delivery.spool.path(of: id)); it is posted on the next run")
            }
        }
        delivery.stop()
        // CMCD is not evidence: a few seconds to send what is queued (the ended report), then go.
        _ = cmcd.flush(seconds: min(5, waitSeconds))
        cmcd.stop()
        return status
    }
}

/// Hands every event to each observer in turn.
final class FanOutObserver: RelayObserver, @unchecked Sendable {
    let observers: [RelayObserver]
    init(_ observers: [RelayObserver]) { self.observers = observers }
    func received(_ event: ObjectEvent) { for o in observers { o.received(event) } }
    func sessionEnded(_ reason: EndReason) { for o in observers { o.sessionEnded(reason) } }
    func playlistReleased(_ event: ObjectEvent, body: [UInt8]) { for o in observers { o.playlistReleased(event, body: body) } }
}
