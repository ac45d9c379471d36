// The session's side of docs/receipts.md: every playlist verified against its receipt under
// the publisher's key, and each playlist's live revisions against the last one accepted.

import Foundation

final class ReceiptGate {
    private let verifier: ReceiptVerifier
    private let root: URL
    /// The last revision accepted, per receipt name.
    private var accepted: [String: RevisionState] = [:]

    init(publisherKey: [UInt8], root: String) throws {
        verifier = ReceiptVerifier(publisherKey: try Ed25519PublicKey(bytes: publisherKey))
        guard let r = URL(string: root) else { throw RelaySessionError.badOriginURL(root) }
        self.root = r
    }

    /// Called with the session's lock held. `url` is the playlist's URL as listed (CMCD
    /// removed), which is what names it in its receipt.
    func verify(bytes: [UInt8], url: String) throws {
        guard let u = URL(string: url), let name = ReceiptName.forURL(u, root: root) else {
            throw PlaylistGate.Refusal(code: "receipt_invalid", detail: "no receipt name for \(url)")
        }
        do {
            accepted[name] = try verifier.verify(playlistBytes: bytes, name: name, previous: accepted[name])
        } catch {
            throw PlaylistGate.Refusal(code: Self.code(error), detail: error.description)
        }
    }

    static func code(_ e: ReceiptError) -> String {
        switch e {
        case .replayedRevision: return "revision_replayed"
        case .forkedRevision: return "revision_forked"
        case .illegalChange: return "revision_illegal"
        case .wrongKey: return "receipt_wrong_key"
        case .missingReceipt: return "receipt_missing"
        case .badSignature: return "receipt_bad_signature"
        default: return "receipt_invalid"
        }
    }
}
