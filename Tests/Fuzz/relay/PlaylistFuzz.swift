// libFuzzer harness for the HLS playlist parser and the URI rewrite (docs/relay.md,
// Sources/Relay/Playlist), built by scripts/fuzz-relay.sh.
//
// Properties checked on every input, besides "no crash, no out-of-bounds access":
//  - a refusal names a line of the input (or 0, the whole file);
//  - an accepted playlist serializes to exactly the input bytes (Playlist.serialized());
//  - rewriting every URI to a local one (one per distinct URI, as the relay's URL table does)
//    succeeds and keeps every reference, in order, of the same kind, line, byte range and
//    sequence number, each now carrying its replacement;
//  - a media playlist of up to 16 segments that marks ads, released to the audit recorder,
//    with every segment then received, makes a bundle that verifies: whatever ad markers an
//    origin writes, the evidence the relay signs about them is evidence the collector accepts.

import Foundation
@testable import WaiCrypto
@testable import Relay
@testable import Audit

@_cdecl("LLVMFuzzerTestOneInput")
public func playlistFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let playlist: Playlist
    do {
        playlist = try Playlist.parse(bytes, limits: PlaylistLimits(maxBytes: 1 << 16, maxLines: 4096))
    } catch {
        let lines = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        guard error.line >= 0, error.line <= lines + 1 else { fatalError("error names line \(error.line) of \(lines): \(error)") }
        _ = error.description
        return 0
    }
    guard playlist.serialized() == bytes else { fatalError("an accepted playlist does not serialize to its input") }
    // As the relay does (LocalURLTable): one local path per URI, so references that name the
    // same resource (sub-ranges of one file) still do after the rewrite.
    var paths: [String: String] = [:]
    let local = playlist.references.map { r -> String in
        if let p = paths[r.uri] { return p }
        let p = "/r/\(paths.count)/x"
        paths[r.uri] = p
        return p
    }
    var next = 0
    let rewritten: Playlist
    do {
        rewritten = try playlist.rewritingURIs { _ in
            defer { next += 1 }
            return local[next]
        }
    } catch {
        fatalError("rewriting to local URIs failed: \(error)")
    }
    guard rewritten.references.count == playlist.references.count else {
        fatalError("rewrite changed the reference count \(playlist.references.count) → \(rewritten.references.count)")
    }
    for (i, (a, b)) in zip(playlist.references, rewritten.references).enumerated() {
        guard a.kind == b.kind, a.line == b.line, a.byteRange == b.byteRange, a.sequence == b.sequence, b.uri == local[i] else {
            fatalError("reference \(i) changed beyond its URI: \(a) → \(b)")
        }
    }
    // Only where ads are marked: the recorder signs every record, which would otherwise cut
    // the executions tenfold.
    if playlist.kind == .media, playlist.segments.count <= 16,
       playlist.lines.contains(where: { $0.text.hasPrefix("#EXT-X-DATERANGE") || $0.text.hasPrefix("#EXT-X-CUE") }) {
        recordAndVerify(playlist, bytes)
    }
    return 0
}

private func recordAndVerify(_ playlist: Playlist, _ bytes: [UInt8]) {
    let origin = "http://origin.example/live/index.m3u8"
    guard let base = URL(string: origin) else { return }
    do {
        let recorder = try AuditRecorder(installationKey: RelayFuzzKeys.installation, owner: RelayFuzzKeys.owner.publicKey,
                                         cmcdIntervalSeconds: nil)
        let released = ObjectEvent(localPath: "/r/0/index.m3u8", originURL: origin, effectiveURL: nil, kind: .playlist,
                                   sha256: SHA256.hex(bytes), size: bytes.count, outcome: .verified, time: 1_764_000_000)
        recorder.received(released)
        recorder.playlistReleased(released, body: bytes)
        for (i, segment) in playlist.segments.enumerated() {
            guard let url = URIResolution.resolve(segment.uri, against: base) else { continue }
            recorder.received(ObjectEvent(localPath: "/r/\(i + 1)/s", originURL: url.absoluteString, effectiveURL: nil, kind: .object,
                                          sha256: SHA256.hex([UInt8(truncatingIfNeeded: i)]), size: 100, outcome: .verified,
                                          time: 1_764_000_001 + Double(i)))
        }
        _ = try AuditBundle.verify(try recorder.finish())
    } catch {
        fatalError("the recorder's bundle for this playlist does not verify: \(error)")
    }
}
