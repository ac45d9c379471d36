// A fetched playlist on its way to the player: parsed, checked against its receipt and the
// session's revision chain when the session requires signatures, then every URI rewritten
// to a relay-local one (every URI-bearing tag, through Playlist.rewritingURIs).

import Foundation

final class PlaylistGate {
    struct Released {
        let body: [UInt8]
        /// Cannot change any more (EXT-X-ENDLIST, or a multivariant playlist): the session
        /// serves this copy again instead of refetching.
        let final: Bool
        let verified: Bool
    }

    struct Refusal: Error {
        let code: String
        let detail: String
    }

    private let options: RelayOptions
    private let receipts: ReceiptGate?

    init(options: RelayOptions, root: String) throws {
        self.options = options
        receipts = options.requireSigned ? try ReceiptGate(publisherKey: options.publisherKey ?? [], root: root) : nil
    }

    /// Called with the session's lock held: the revision chain and the URL table change here.
    func release(target: OriginTarget, fetched: OriginResponse, table: inout LocalURLTable,
                 base: String) throws -> Released {
        let playlist: Playlist
        do {
            playlist = try Playlist.parse(fetched.body)
        } catch {
            throw Refusal(code: "playlist_invalid", detail: error.description)
        }
        if let receipts = receipts {
            try receipts.verify(bytes: fetched.body, url: target.url)
        }
        guard let effective = URL(string: fetched.effectiveURL) else {
            throw Refusal(code: "playlist_invalid", detail: "origin URL \(fetched.effectiveURL) does not parse")
        }
        var registered: [OriginTarget] = []
        let rewritten: Playlist
        do {
            var localTable = table
            rewritten = try playlist.rewritingURIs { ref in
                guard let absolute = URIResolution.resolve(ref.uri, against: effective) else {
                    throw PlaylistError(line: ref.line, "URI '\(ref.uri)' does not resolve against \(fetched.effectiveURL)")
                }
                let t = localTable.register(url: removingCMCD(absolute.absoluteString),
                                            kind: ref.kind.isPlaylist ? .playlist : .object)
                registered.append(t)
                return base + t.localPath
            }
            table = localTable
        } catch let e as PlaylistError {
            throw Refusal(code: "playlist_invalid", detail: e.description)
        }
        let final = playlist.kind == .multivariant || (playlist.media?.endList ?? false)
        return Released(body: rewritten.serialized(), final: final, verified: receipts != nil)
    }
}
