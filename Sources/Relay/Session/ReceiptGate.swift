// The session's side of docs/receipts.md: every playlist verified against its receipt under
// the publisher's key, each playlist's live revisions against the last one accepted, and the
// first revision of a live playlist against the clock (§4.2).

import WaiSupport
import Foundation

final class ReceiptGate: @unchecked Sendable {
    private let verifier: ReceiptVerifier
    private let root: URL
    private let maxFirstRevisionAge: UInt64
    /// Its own lock, not the session's: verifying a large playlist must not stall requests
    /// for other objects.
    private let lock = Mutex()
    /// The last revision accepted, per receipt name.
    private var accepted: [String: RevisionState] = [:]

    init(publisherKey: [UInt8], root: String, maxFirstRevisionAge: UInt64) throws {
        verifier = ReceiptVerifier(publisherKey: try Ed25519PublicKey(bytes: publisherKey))
        guard let r = URL(string: root) else { throw RelaySessionError.badOriginURL(redactingUserinfo(root)) }
        self.root = r
        self.maxFirstRevisionAge = maxFirstRevisionAge
    }

    /// `url` is the playlist's URL as listed (CMCD removed), which is what names it in its
    /// receipt.
    func verify(bytes: [UInt8], url: String) throws {
        guard let u = URL(string: url), let name = ReceiptName.forURL(u, root: root) else {
            throw PlaylistGate.Refusal(code: "receipt_invalid", detail: "no receipt name for \(redactingUserinfo(url))")
        }
        let freshness = ReceiptFreshness(maxAgeSeconds: maxFirstRevisionAge)
        try lock.withLock {
            do {
                accepted[name] = try verifier.verify(playlistBytes: bytes, name: name, previous: accepted[name], freshness: freshness)
            } catch let e as ReceiptError {
                throw PlaylistGate.Refusal(code: Self.code(e), detail: e.description)
            }
        }
    }

    static func code(_ e: ReceiptError) -> String {
        switch e {
        case .replayedRevision: return "revision_replayed"
        case .forkedRevision: return "revision_forked"
        case .illegalChange: return "revision_illegal"
        case .staleRevision: return "receipt_stale"
        case .wrongKey: return "receipt_wrong_key"
        case .missingReceipt: return "receipt_missing"
        case .badSignature: return "receipt_bad_signature"
        default: return "receipt_invalid"
        }
    }
}
