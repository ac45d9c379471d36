/// JSON for closed sets spelled as one word (an op's name, a mismatch site): the word itself,
/// and a word outside the set refused naming the ones there are, so a forged or future value
/// in a probe-cache file or report is an error that says what is wrong.
public enum WordCoding {
    /// Reads one word and parses it; `refusal` is what an unknown word is not ("no op").
    public static func decode<T>(_ decoder: Decoder, refusal: String, names: [String],
                                 _ parse: (String) -> T?) throws -> T {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let value = parse(text) else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "'\(text)' is \(refusal) (one of \(names.joined(separator: ", ")))")
        }
        return value
    }

    public static func encode(_ word: String, to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(word)
    }
}
