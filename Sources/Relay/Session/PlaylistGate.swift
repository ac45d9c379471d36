// A fetched playlist on its way to the player: bounded, parsed, checked against its receipt
// and the session's revision chain when the session requires signatures, then every URI
// rewritten to a relay-local one (every URI-bearing tag, through Playlist.rewritingURIs).
// None of this runs under the session's lock: only registering the URIs does, through
// `register`, so a large playlist never stalls the player's other requests.

import Foundation

final class PlaylistGate: @unchecked Sendable {
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

    /// One URI to register: its absolute URL (CMCD removed) and what it names.
    struct Listed {
        let url: String
        let kind: ObjectEvent.Kind
    }

    private let options: RelayOptions
    private let receipts: ReceiptGate?

    init(options: RelayOptions, root: String) throws {
        self.options = options
        receipts = options.requireSigned
            ? try ReceiptGate(publisherKey: options.publisherKey ?? [], root: root,
                              maxFirstRevisionAge: options.maxFirstRevisionAgeSeconds)
            : nil
    }

    /// `register` is called once, with every URI in order, and returns the local path of each
    /// (the session runs it under its lock).
    func release(target: OriginTarget, fetched: OriginResponse,
                 register: ([Listed]) -> [String]) throws -> Released {
        let playlist: Playlist
        let body = fetched.body
        do {
            playlist = try Playlist.parse(body, limits: options.playlistLimits)
        } catch {
            throw Refusal(code: "playlist_invalid", detail: error.description)
        }
        if let receipts = receipts {
            try receipts.verify(bytes: body, url: target.url)
        }
        let shownBase = redactingUserinfo(fetched.effectiveURL)
        guard let effective = URL(string: fetched.effectiveURL) else {
            throw Refusal(code: "playlist_invalid", detail: "origin URL \(shownBase) does not parse")
        }
        var listed: [Listed] = []
        listed.reserveCapacity(playlist.references.count)
        for ref in playlist.references {
            guard let absolute = URIResolution.resolve(ref.uri, against: effective) else {
                throw Refusal(code: "playlist_invalid",
                              detail: PlaylistError(line: ref.line, "URI '\(redactingUserinfo(ref.uri))' does not resolve against \(shownBase)").description)
            }
            listed.append(Listed(url: removingCMCD(absolute.absoluteString), kind: ref.kind.isPlaylist ? .playlist : .object))
        }
        let paths = register(listed)
        let rewritten: Playlist
        do {
            // rewritingURIs asks for the references in the order written, as listed above.
            var next = 0
            rewritten = try playlist.rewritingURIs { _ in
                defer { next += 1 }
                return next < paths.count ? paths[next] : nil
            }
        } catch let e as PlaylistError {
            throw Refusal(code: "playlist_invalid", detail: e.description)
        }
        let final = playlist.kind == .multivariant || (playlist.media?.endList ?? false)
        return Released(body: rewritten.serialized(), final: final, verified: receipts != nil)
    }
}
