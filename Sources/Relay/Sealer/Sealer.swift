// Seals an HLS folder (docs/sealing.md): every media segment and initialization section is
// placed under its content address `<sha256>.<ext>`, media playlists are rewritten to those
// names, and every playlist gets a receipt (docs/receipts.md). Re-running on the same folder
// publishes a new revision only for playlists whose content changed, chained to the last one
// published, so `--watch` is this pass in a loop.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

public struct SealReport: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        /// Path relative to the folder: the receipt's NAME.
        public let name: String
        public let kind: PlaylistKind
        /// The revision now published.
        public let revision: UInt64
        /// Whether this pass wrote a new revision (false: content unchanged).
        public let published: Bool
        public let endList: Bool
    }

    public var playlists: [Entry] = []
    /// Objects newly placed under their content address in this pass.
    public var objectsPlaced = 0
    /// Every media playlist carries EXT-X-ENDLIST: a live stream has ended.
    public var complete: Bool { playlists.allSatisfy { $0.kind == .multivariant || $0.endList } }
}

public final class Sealer {
    public let source: String
    public let output: String
    public let signer: ReceiptSigner
    public var inPlace: Bool { source == output }

    private struct Published {
        let receipt: PlaylistReceipt
        let covered: [UInt8]
        let playlist: Playlist
    }

    private var published: [String: Published] = [:]
    private var hashes: [String: (size: Int64, mtime: Int64, hash: [UInt8])] = [:]

    /// `output` nil seals in place: objects are renamed and playlists rewritten inside `source`.
    public init(source: String, output: String?, key: Ed25519PrivateKey) {
        self.source = Self.normalize(source)
        self.output = Self.normalize(output ?? source)
        self.signer = ReceiptSigner(key: key)
    }

    private static func normalize(_ p: String) -> String {
        let s = (p as NSString).standardizingPath
        return s.isEmpty ? "." : s
    }

    /// One pass over the folder. Throws before publishing anything when any playlist cannot
    /// be sealed, so a pass publishes all its playlists or none.
    public func sealOnce() throws(SealError) -> SealReport {
        var report = SealReport()
        var plans: [(name: String, kind: PlaylistKind, covered: [UInt8], playlist: Playlist)] = []
        var objects: [(from: String, to: String)] = []
        var originals: Set<String> = []
        for name in try SealFiles.playlists(under: source) {
            let path = source + "/" + name
            let raw = try SealFiles.read(path)
            // A source that is already sealed (in place, or re-run) is sealed again from its
            // covered bytes; its receipt is the previous revision.
            let (bytes, priorReceipt) = stripReceipt(raw)
            let playlist: Playlist
            do { playlist = try Playlist.parse(bytes) } catch { throw .invalidPlaylist(path: path, error: error) }
            if published[name] == nil {
                published[name] = try priorState(name: name, sourceReceipt: priorReceipt, sourceCovered: bytes)
            }
            var sealed = playlist
            if playlist.kind == .media {
                let endList = playlist.media?.endList ?? false
                var mapping: [String: String] = [:]
                for ref in playlist.references {
                    switch ref.kind {
                    case .segment, .map, .key:
                        // A key is content-addressed like a segment (docs/sealing.md §2): the
                        // signed playlist then names its SHA-256, so the relay can check it and
                        // a swapped key is withheld. Its hash says nothing usable about a
                        // 128-bit key.
                        if ref.byteRange != nil && !endList { throw .liveByteRange(playlist: name, line: ref.line) }
                        if mapping[ref.uri] != nil { continue }
                        let rel = try localPath(ref, playlistName: name)
                        let objPath = source + "/" + rel
                        guard SealFiles.exists(objPath) else { throw .missingObject(playlist: name, line: ref.line, path: objPath) }
                        let last = (rel as NSString).lastPathComponent
                        let ext = (last as NSString).pathExtension
                        guard ContentAddress.isValidExtension(ext) else { throw .badExtension(playlist: name, line: ref.line, uri: ref.uri) }
                        let newLast = ContentAddress.name(hash: try hash(objPath), fileExtension: ext)
                        let relDir = (rel as NSString).deletingLastPathComponent
                        let target = output + "/" + (relDir.isEmpty ? newLast : relDir + "/" + newLast)
                        if target != objPath {
                            objects.append((objPath, target))
                            if inPlace { originals.insert(objPath) }
                        }
                        let uriDir = (ref.uri as NSString).deletingLastPathComponent
                        mapping[ref.uri] = uriDir.isEmpty ? newLast : uriDir + "/" + newLast
                    case .sessionData, .sessionKey, .contentSteering:
                        // Not media a player decodes (a session key is only a hint to fetch
                        // early; the media playlist's EXT-X-KEY is the one used): a local file
                        // is carried over unchanged.
                        if !inPlace, let rel = try? localPath(ref, playlistName: name), SealFiles.exists(source + "/" + rel) {
                            objects.append((source + "/" + rel, output + "/" + rel))
                        }
                    case .part, .preloadHint:
                        throw .unsupportedURI(playlist: name, line: ref.line, uri: ref.uri, reason: "low-latency partial segments are not sealed")
                    case .media, .iFrameStream, .variantStream, .renditionReport:
                        break  // playlists keep their names; each is sealed as a file of its own
                    }
                }
                do { sealed = try playlist.rewritingURIs { mapping[$0.uri] } } catch let e as PlaylistError {
                    throw .invalidPlaylist(path: path, error: e)
                } catch { throw .io(path: path, reason: "\(error)") }
            }
            plans.append((name, playlist.kind, sealed.serialized(), sealed))
        }
        // Check every playlist's new revision before publishing any.
        var revisions: [String: UInt64] = [:]
        for plan in plans {
            guard let prev = published[plan.name] else { revisions[plan.name] = 1; continue }
            if prev.covered == plan.covered { continue }
            do { try RevisionRules.check(previous: prev.playlist, next: plan.playlist) } catch {
                throw .wouldViolateRevisionRules(playlist: plan.name, violation: error)
            }
            revisions[plan.name] = prev.receipt.revision + 1
        }
        // Objects first, then media playlists, then multivariant ones: nothing published ever
        // names a file not yet there.
        for (from, to) in objects where !SealFiles.exists(to) {
            try SealFiles.place(from, at: to)
            report.objectsPlaced += 1
        }
        for plan in plans.sorted(by: { ($0.kind == .media ? 0 : 1, $0.name) < ($1.kind == .media ? 0 : 1, $1.name) }) {
            let endList = plan.playlist.media?.endList ?? false
            guard let revision = revisions[plan.name] else {
                report.playlists.append(.init(name: plan.name, kind: plan.kind, revision: published[plan.name]?.receipt.revision ?? 1,
                                              published: false, endList: endList))
                continue
            }
            let previous = revision == 1 ? nil : published[plan.name]?.receipt
            let sealedBytes: [UInt8], receipt: PlaylistReceipt
            do {
                (sealedBytes, receipt) = try signer.seal(playlist: plan.covered, name: plan.name, revision: revision, previous: previous)
            } catch { throw .receipt(path: plan.name, error: error) }
            let target = output + "/" + plan.name
            try SealFiles.makeDirectory((target as NSString).deletingLastPathComponent)
            try SealFiles.atomicWrite(sealedBytes, to: target)
            published[plan.name] = Published(receipt: receipt, covered: Array(sealedBytes.prefix(sealedBytes.count - receipt.line.utf8.count - 1)),
                                             playlist: plan.playlist)
            report.playlists.append(.init(name: plan.name, kind: plan.kind, revision: revision, published: true, endList: endList))
        }
        for path in originals { unlink(path) }
        report.playlists.sort { $0.name < $1.name }
        return report
    }

    /// Seals the folder every `interval` seconds until every media playlist carries
    /// EXT-X-ENDLIST or `shouldStop` says so. A pass that fails (a playlist read while ffmpeg
    /// rewrites it, a segment deleted under it) publishes nothing and is retried; `log`
    /// hears about every revision published and every failed pass.
    public func watch(interval: Double, log: (String) -> Void, shouldStop: () -> Bool) -> SealReport? {
        var last: SealReport?
        while !shouldStop() {
            do {
                let r = try sealOnce()
                for e in r.playlists where e.published { log("\(e.name): revision \(e.revision)\(e.endList ? " (end of list)" : "")") }
                last = r
                if !r.playlists.isEmpty && r.complete { return r }
            } catch {
                log("pass not published, retrying: \(error)")
            }
            usleep(UInt32(max(0.01, interval) * 1_000_000))
        }
        return last
    }

    // MARK: helpers

    private func stripReceipt(_ raw: [UInt8]) -> (bytes: [UInt8], receipt: PlaylistReceipt?) {
        guard let (covered, line) = try? ReceiptSplit.split(raw), let r = try? PlaylistReceipt.parse(line: line) else { return (raw, nil) }
        return (Array(covered), r)
    }

    /// The last revision of `name` published by this key, from a sealed source (in place)
    /// or from the output folder of an earlier run, so a restarted sealer keeps the chain.
    private func priorState(name: String, sourceReceipt: PlaylistReceipt?, sourceCovered: [UInt8]) throws(SealError) -> Published? {
        var candidate: (PlaylistReceipt, [UInt8])?
        if inPlace {
            if let r = sourceReceipt { candidate = (r, sourceCovered) }
        } else if SealFiles.exists(output + "/" + name) {
            let (covered, r) = stripReceipt(try SealFiles.read(output + "/" + name))
            if let r { candidate = (r, covered) }
        }
        guard let (r, covered) = candidate, r.publisherKey == signer.key.publicKey, r.name == name,
              let p = try? Playlist.parse(covered) else { return nil }
        return Published(receipt: r, covered: covered, playlist: p)
    }

    /// The folder-relative path a URI names: a plain relative path, no scheme, query,
    /// fragment, escapes or '..'.
    private func localPath(_ ref: URIReference, playlistName: String) throws(SealError) -> String {
        let u = ref.uri
        func refuse(_ why: String) -> SealError { .unsupportedURI(playlist: playlistName, line: ref.line, uri: u, reason: why) }
        if u.hasPrefix("/") { throw refuse("absolute path") }
        if let colon = u.firstIndex(of: ":"), !u[..<colon].contains("/") { throw refuse("has a scheme") }
        if u.contains("?") || u.contains("#") { throw refuse("has a query or fragment") }
        if u.contains("%") { throw refuse("percent-escapes are not resolved to file names") }
        let parts = u.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) { throw refuse("'.', '..' or empty path segment") }
        let dir = (playlistName as NSString).deletingLastPathComponent
        return dir.isEmpty ? u : dir + "/" + u
    }

    private func hash(_ path: String) throws(SealError) -> [UInt8] {
        let id = try SealFiles.identity(path)
        if let c = hashes[path], c.size == id.size, c.mtime == id.mtime { return c.hash }
        let h = try SealFiles.sha256(path)
        hashes[path] = (id.size, id.mtime, h)
        return h
    }
}
