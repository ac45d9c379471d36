// libFuzzer harness for the HLS playlist parser and the URI rewrite (docs/relay.md,
// Sources/Relay/Playlist), built by scripts/fuzz-relay.sh.
//
// Properties checked on every input, besides "no crash, no out-of-bounds access":
//  - a refusal names a line of the input (or 0, the whole file);
//  - an accepted playlist serializes to exactly the input bytes (Playlist.serialized());
//  - rewriting every URI to a local one (one per distinct URI, as the relay's URL table does)
//    succeeds and keeps every reference, in order, of the same kind, line, byte range and
//    sequence number, each now carrying its replacement.

@testable import Relay

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
    return 0
}
