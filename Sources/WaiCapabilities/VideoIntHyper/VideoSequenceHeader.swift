/// The sequence header and frame index every video payload shares (docs/capabilities/
/// video_int_hyper.md §4, cited as VIH): magic, version 1, flags, chroma, matrix, size, frame
/// rate, aspect, intra period, frame count, one or more 32-byte model-set ids, then 16 bytes of
/// index per frame. One reader and one writer for `wai.video.int_hyper`, `wai.video.int_motion`
/// and `wai.video.int_cond`; each payload keeps its own error type and messages by mapping
/// `VideoSequenceHeaderError` (same cases, same fields, same offsets; VideoSequenceHeaderRefusal).
struct VideoSequenceHeader: Equatable, Sendable {
    /// What differs between the capabilities' headers.
    struct Layout: Sendable {
        var magic: [UInt8]
        /// The model-set id fields after frame_count, in order (32 bytes each).
        var idFields: [String]
        /// Nil when the intra period is acceptable, else the problem ("is 0; 1…65535 allowed").
        var periodProblem: @Sendable (Int) -> String?
        /// The kind code frame `i` must have with intra period `gop`, or the problem with `kind`.
        var kindProblem: @Sendable (_ frame: Int, _ kind: UInt8, _ gop: Int) -> String?

        var headerSize: Int { 36 + 32 * idFields.count }
    }

    static let version: UInt8 = 1
    static let indexEntrySize = 16
    static let maximumFrames = VideoIntHyperPayload.maximumFrames

    struct Frame: Equatable, Sendable {
        var kind: UInt8
        var range: Range<Int>
    }

    var chroma: VideoChroma
    var width: Int
    var height: Int
    var frameRate: Rational
    var aspect: Rational
    var intraPeriod: Int
    var modelSetIDs: [[UInt8]]
    var frames: [Frame]

    static func make(_ layout: Layout, chroma: VideoChroma, width: Int, height: Int, frameRate: Rational, aspect: Rational,
                     intraPeriod: Int, modelSetIDs: [[UInt8]], frames: [(kind: UInt8, bytes: [UInt8])]) -> [UInt8] {
        var out = layout.magic
        out += [version, 0, chroma.code, VideoIntHyperPayload.matrixBT601Limited]
        le(&out, width, 2); le(&out, height, 2)
        le(&out, frameRate.numerator, 4); le(&out, frameRate.denominator, 4)
        le(&out, aspect.numerator, 4); le(&out, aspect.denominator, 4)
        le(&out, intraPeriod, 4)
        le(&out, frames.count, 4)
        for id in modelSetIDs { out += id }
        var offset = layout.headerSize + indexEntrySize * frames.count
        for f in frames {
            le(&out, offset, 8); le(&out, f.bytes.count, 4)
            out += [f.kind, 0, 0, 0]
            offset += f.bytes.count
        }
        for f in frames { out += f.bytes }
        return out
    }

    /// VIH §4.1's order, stopping at the first failure: the header fields, the index's size
    /// against the payload before it is read, each index entry, no trailing bytes. Throws only
    /// `VideoSequenceHeaderError`.
    static func parse(_ bytes: [UInt8], _ layout: Layout) throws -> VideoSequenceHeader {
        typealias E = VideoSequenceHeaderError
        var r = FieldReader(bytes) { E.truncated(field: $0, offset: $1, needed: $2, available: $3) }
        let m = try r.take(4, "magic")
        guard m.elementsEqual(layout.magic) else { throw E.badMagic(found: Array(m)) }
        let v = try r.u8("version")
        guard v == version else { throw E.unsupportedVersion(v) }
        func invalid(_ field: String, _ offset: Int, _ problem: String) -> E { .invalidField(field: field, offset: offset, problem: problem) }
        let flags = try r.u8("flags")
        guard flags == 0 else { throw invalid("flags", 5, "is \(flags), must be 0") }
        let code = try r.u8("chroma")
        guard let chroma = VideoChroma(code: code) else { throw invalid("chroma", 6, "is \(code); 0 (rgb), 1 (yuv420) or 2 (yuv444)") }
        let matrix = try r.u8("matrix")
        guard matrix == VideoIntHyperPayload.matrixBT601Limited else {
            throw invalid("matrix", 7, "is \(matrix); 1 (BT.601 limited range) is the only one")
        }
        let width = try r.uint("width", 2), height = try r.uint("height", 2)
        guard width >= 1 else { throw invalid("width", 8, "is 0; 1…65535 allowed") }
        guard height >= 1 else { throw invalid("height", 10, "is 0; 1…65535 allowed") }
        let rn = try r.uint("frame_rate_numerator", 4), rd = try r.uint("frame_rate_denominator", 4)
        for (field, offset, value) in [("frame_rate_numerator", 12, rn), ("frame_rate_denominator", 16, rd)]
        where !(1...Rational.maximumTerm).contains(value) {
            throw invalid(field, offset, "is \(value); 1…\(Rational.maximumTerm) allowed")
        }
        let an = try r.uint("aspect_numerator", 4), ad = try r.uint("aspect_denominator", 4)
        guard an <= Rational.maximumTerm, ad <= Rational.maximumTerm, (an == 0) == (ad == 0) else {
            throw invalid("aspect_numerator", 20, "with aspect_denominator is \(an):\(ad); both in 1…\(Rational.maximumTerm), or 0:0 (unknown)")
        }
        let period = try r.uint("intra_period", 4)
        if let problem = layout.periodProblem(period) { throw invalid("intra_period", 28, problem) }
        let count = try r.uint("frame_count", 4)
        guard (1...maximumFrames).contains(count) else { throw invalid("frame_count", 32, "is \(count); 1…\(maximumFrames) allowed") }
        var ids: [[UInt8]] = []
        for field in layout.idFields { ids.append(Array(try r.take(32, field))) }
        // Checked before the index is read or anything sized by the count is kept.
        let headerSize = layout.headerSize
        let indexEnd = headerSize + indexEntrySize * count
        guard indexEnd <= bytes.count else {
            throw E.truncated(field: "frame index", offset: headerSize, needed: indexEntrySize * count, available: bytes.count - headerSize)
        }
        var frames: [Frame] = []
        frames.reserveCapacity(count)
        var expected = indexEnd
        for i in 0..<count {
            let entry = r.offset
            let offset = try r.uint("frame index", 8), length = try r.uint("frame index", 4)
            let kind = try r.u8("frame index")
            let reserved = try r.take(3, "frame index")
            guard offset == expected else {
                throw E.invalidIndexEntry(frame: i, field: "offset", offset: entry,
                                          problem: "is \(offset); the frame must start at byte \(expected), where the \(i == 0 ? "index" : "previous frame") ends")
            }
            guard length >= 1 else { throw E.invalidIndexEntry(frame: i, field: "length", offset: entry + 8, problem: "is 0") }
            guard length <= bytes.count - offset else {
                throw E.invalidIndexEntry(frame: i, field: "length", offset: entry + 8,
                                          problem: "is \(length); only \(bytes.count - offset) bytes follow byte \(offset)")
            }
            if let problem = layout.kindProblem(i, kind, period) {
                throw E.invalidIndexEntry(frame: i, field: "kind", offset: entry + 12, problem: problem)
            }
            guard reserved.allSatisfy({ $0 == 0 }) else {
                throw E.invalidIndexEntry(frame: i, field: "reserved", offset: entry + 13, problem: "must be 0")
            }
            frames.append(Frame(kind: kind, range: offset..<(offset + length)))
            expected = offset + length
        }
        guard expected == bytes.count else { throw E.trailingBytes(count: bytes.count - expected, offset: expected) }
        return VideoSequenceHeader(chroma: chroma, width: width, height: height, frameRate: Rational(rn, rd), aspect: Rational(an, ad),
                                   intraPeriod: period, modelSetIDs: ids, frames: frames)
    }

    static func le(_ out: inout [UInt8], _ v: Int, _ n: Int) {
        for i in 0..<n { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    /// The GOP rule of the predicted capabilities (int_motion §5, int_cond §5): intra exactly
    /// when i mod G = 0.
    static func gopLayout(magic: [UInt8], idFields: [String]) -> Layout {
        let gops = VideoIntMotionPayload.gopRange
        return Layout(magic: magic, idFields: idFields,
                      periodProblem: { gops.contains($0) ? nil : "is \($0); 1…\(gops.upperBound) allowed" },
                      kindProblem: { i, kind, gop in
                          let must = VideoIntMotionPayload.kind(ofFrame: i, gop: gop)
                          guard kind != must.code else { return nil }
                          return "is \(kind); frame \(i) with intra period \(gop) must be \(must.code) (\(must.rawValue))"
                              + (must == .intra ? ": a P-frame needs a preceding intra frame of its GOP" : "")
                      })
    }
}

/// The shared header's refusals; each payload maps them to its own error type with the same
/// case, field and offset.
enum VideoSequenceHeaderError: Error, Equatable, Sendable {
    case badMagic(found: [UInt8])
    case unsupportedVersion(UInt8)
    case invalidField(field: String, offset: Int, problem: String)
    case truncated(field: String, offset: Int, needed: Int, available: Int)
    case invalidIndexEntry(frame: Int, field: String, offset: Int, problem: String)
    case trailingBytes(count: Int, offset: Int)
}
