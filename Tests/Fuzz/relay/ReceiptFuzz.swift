// libFuzzer harness for playlist receipts (docs/receipts.md): the receipt line parser, the
// verifier and the revision rules, built by scripts/fuzz-relay.sh.
//
// Each input is checked three ways, besides "no crash, no out-of-bounds access":
//  - as fetched: verified under the fixed publisher key; a refusal is a ReceiptError;
//  - sealed again (its receipt line, if any, replaced by the fixed key's): whatever the sealer
//    signs, the verifier accepts;
//  - as two revisions (the input split at its first 0x1E byte), sealed as revisions 1 and 2 of
//    one chain: revision 1 is accepted, and revision 2 is accepted or refused only as an
//    illegal change (RFC 8216 §6.2.1), never as a bad signature or a broken chain.

@testable import WaiCrypto
@testable import Relay

private let verifier = ReceiptVerifier(publisherKey: RelayFuzzKeys.publisher.publicKey)
private let signer = ReceiptSigner(key: RelayFuzzKeys.publisher)

@_cdecl("LLVMFuzzerTestOneInput")
public func receiptFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    do {
        _ = try verifier.verify(playlistBytes: bytes, name: RelayFuzzKeys.playlistName, previous: nil)
    } catch {
        _ = error.description
    }
    if let split = bytes.firstIndex(of: 0x1E) {
        twoRevisions(withoutReceipt(Array(bytes[..<split])), withoutReceipt(Array(bytes[(split + 1)...])))
    } else {
        resealed(withoutReceipt(bytes))
    }
    return 0
}

/// The bytes before a last line that starts with the receipt tag (the whole input otherwise).
/// (ReceiptSplit.split is stricter: it refuses CRLF, truncation and other receipt lines, where
/// this harness strips the last one and seals again anyway.)
private func withoutReceipt(_ bytes: [UInt8]) -> [UInt8] {
    let end = bytes.last == 0x0A ? bytes.count - 1 : bytes.count
    guard let start = ReceiptSplit.lastLineStart(bytes, end: end),
          bytes[start..<end].starts(with: Array(PlaylistReceipt.tag.utf8)) else { return bytes }
    return Array(bytes[..<start])
}

private func seal(_ playlist: [UInt8], revision: UInt64, previous: PlaylistReceipt?) -> (bytes: [UInt8], receipt: PlaylistReceipt)? {
    do {
        return try signer.seal(playlist: playlist, name: RelayFuzzKeys.playlistName, revision: revision, previous: previous,
                               time: RelayFuzzKeys.sealTime)
    } catch {
        switch error {
        case .invalidPlaylist, .malformedReceipt: return nil
        default: fatalError("the sealer refused with \(error)")
        }
    }
}

private func resealed(_ playlist: [UInt8]) {
    guard let sealed = seal(playlist, revision: 1, previous: nil) else { return }
    do {
        _ = try verifier.verify(playlistBytes: sealed.bytes, name: RelayFuzzKeys.playlistName, previous: nil)
    } catch {
        fatalError("a playlist the sealer signed is refused: \(error)")
    }
}

private func twoRevisions(_ first: [UInt8], _ second: [UInt8]) {
    guard let one = seal(first, revision: 1, previous: nil), let two = seal(second, revision: 2, previous: one.receipt) else { return }
    let state: RevisionState
    do {
        state = try verifier.verify(playlistBytes: one.bytes, name: RelayFuzzKeys.playlistName, previous: nil)
    } catch {
        fatalError("revision 1, sealed, is refused: \(error)")
    }
    do {
        let next = try verifier.verify(playlistBytes: two.bytes, name: RelayFuzzKeys.playlistName, previous: state)
        guard next.revision == 2 else { fatalError("revision 2 accepted as revision \(next.revision)") }
    } catch {
        guard case .illegalChange(let violation) = error else { fatalError("revision 2 of a sound chain refused: \(error)") }
        _ = violation.description
    }
}
