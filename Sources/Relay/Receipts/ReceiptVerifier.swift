// Checks a fetched playlist against its receipt and, for a live playlist, against the last
// revision accepted (docs/receipts.md §4).

/// What one accepted revision leaves for checking the next.
public struct RevisionState: Equatable, Sendable {
    public let name: String
    public let receipt: PlaylistReceipt
    /// SHA-256 of the receipt line: the next revision's PREVIOUS.
    public var receiptHash: [UInt8] { receipt.hash }
    public var revision: UInt64 { receipt.revision }
    /// The signed bytes (the file minus its receipt line), parsed.
    public let playlist: Playlist
}

public struct ReceiptVerifier: Sendable {
    public let publisherKey: Ed25519PublicKey

    public init(publisherKey: Ed25519PublicKey) {
        self.publisherKey = publisherKey
    }

    /// Verifies `playlistBytes` (the whole file as fetched, receipt line last) as the
    /// playlist `name` (ReceiptName), and as the successor of `previous` when one was
    /// accepted before. Returns the state to pass as `previous` next time; a re-fetch of the
    /// same revision returns `previous` unchanged.
    /// `freshness`: the rule of docs/receipts.md §4.2 for the first revision of a live
    /// playlist (nil: not checked, as for a recorded session checked later).
    public func verify(playlistBytes: [UInt8], name: String, previous: RevisionState?,
                       freshness: ReceiptFreshness? = nil) throws(ReceiptError) -> RevisionState {
        let (covered, line) = try ReceiptSplit.split(playlistBytes)
        let receipt = try PlaylistReceipt.parse(line: line)
        guard receipt.publisherKey == publisherKey else { throw .wrongKey(expected: publisherKey.hex, got: receipt.publisherKey.hex) }
        guard receipt.name == name else { throw .wrongName(expected: name, got: receipt.name) }
        let message = PlaylistReceipt.signedMessage(
            name: receipt.name, revision: receipt.revision, time: receipt.time, publisherKey: receipt.publisherKey,
            previous: receipt.previous, playlistSHA256: SHA256Hasher.digest(covered))
        guard publisherKey.verify(signature: receipt.signature, message: message) else { throw .badSignature }
        let playlist: Playlist
        do { playlist = try Playlist.parse(Array(covered)) } catch { throw .invalidPlaylist(error) }
        let state = RevisionState(name: name, receipt: receipt, playlist: playlist)
        guard let prev = previous else {
            try freshness?.check(receipt, playlist)
            return state
        }
        guard prev.name == name else { throw .wrongName(expected: prev.name, got: name) }
        if receipt.revision == prev.revision {
            if receipt.hash == prev.receiptHash { return prev }
            throw .forkedRevision(revision: receipt.revision, reason: "a different playlist carries a revision number already accepted")
        }
        if receipt.revision < prev.revision { throw .replayedRevision(got: receipt.revision, latest: prev.revision) }
        // revision > prev + 1: revisions were published between two fetches; the link cannot
        // be checked, the §6.2.1 rules against the last accepted revision still are.
        if receipt.revision == prev.revision + 1, receipt.previous != prev.receiptHash {
            throw .forkedRevision(revision: receipt.revision, reason: "PREVIOUS is not the receipt of revision \(prev.revision) accepted before")
        }
        do { try RevisionRules.check(previous: prev.playlist, next: playlist) } catch { throw .illegalChange(error) }
        return state
    }
}

/// Signs playlists (the sealer's side of the receipt).
public struct ReceiptSigner: Sendable {
    public let key: Ed25519PrivateKey

    public init(key: Ed25519PrivateKey) {
        self.key = key
    }

    /// `playlist` with its receipt appended as the last line. `playlist` must parse and must
    /// not carry a receipt; an LF is added first when it does not end in one. `previous` is the
    /// previous revision's receipt (nil for revision 1).
    /// `time`: seconds since the Unix epoch written as TIME; nil: now.
    public func seal(playlist: [UInt8], name: String, revision: UInt64, previous: PlaylistReceipt?,
                     time: UInt64? = nil) throws(ReceiptError) -> (bytes: [UInt8], receipt: PlaylistReceipt) {
        let time = time ?? ReceiptFreshness.clockSeconds()
        guard PlaylistReceipt.isValidName(name) else { throw .malformedReceipt("name '\(name)' cannot be carried in a receipt") }
        guard revision >= 1, (revision == 1) == (previous == nil) else {
            throw .malformedReceipt("revision \(revision) \(revision == 1 ? "must not" : "must") have a previous receipt")
        }
        if let p = previous, p.revision + 1 != revision || p.name != name {
            throw .malformedReceipt("previous receipt is revision \(p.revision) of '\(p.name)', not revision \(revision - 1) of '\(name)'")
        }
        var covered = playlist
        if covered.last != 0x0A { covered.append(0x0A) }
        do { _ = try Playlist.parse(covered) } catch { throw .invalidPlaylist(error) }
        if covered.split(separator: 0x0A).contains(where: { $0.starts(with: Array(PlaylistReceipt.tag.utf8)) }) {
            throw .malformedReceipt("the playlist already carries a receipt")
        }
        let prevHash = previous?.hash
        let message = PlaylistReceipt.signedMessage(name: name, revision: revision, time: time, publisherKey: key.publicKey,
                                                    previous: prevHash, playlistSHA256: SHA256Hasher.digest(covered))
        let sig: [UInt8]
        do { sig = try key.sign(message) } catch { throw .signing(error.description) }
        let receipt = PlaylistReceipt(name: name, revision: revision, time: time, publisherKey: key.publicKey, previous: prevHash, signature: sig)
        return (covered + Array(receipt.line.utf8) + [0x0A], receipt)
    }
}
