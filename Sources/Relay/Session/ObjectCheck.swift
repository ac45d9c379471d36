// The decision for one fetched object, from its name and the SHA-256 of its bytes.

enum ObjectCheck {
    enum Verdict: Equatable {
        case verified
        case relayed
        case withheld(String, String)
    }

    static func judge(uri: String, name: String, sha256: String, options: RelayOptions) -> Verdict {
        let strict = options.contentAddressed || options.requireSigned
        if let statedHash = ContentAddress.expectedHash(forURI: uri) {
            let stated = Hex.encode(statedHash)
            if stated == sha256 { return .verified }
            // Without either flag the relay never refuses for what a name looks like.
            return strict ? .withheld("hash_mismatch", "name states sha256 \(stated), bytes hash to \(sha256)") : .relayed
        }
        if strict {
            // A signed playlist binds objects only through names that state their hash, so an
            // object without one is not something the publisher signed.
            return .withheld("not_content_addressed", "\(name) does not state its SHA-256")
        }
        return .relayed
    }
}
