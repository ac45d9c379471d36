/// How a sequence's frames are meant to be shown (docs/capabilities/video_int_hyper.md §3).
/// The coded pictures are RGB in every case; this says what the decoder writes.
public enum VideoChroma: String, Sendable, Codable, CaseIterable {
    /// The source was RGB: decoded frames are the model's RGB8 rows (Y4M output: C444).
    case rgb
    /// Y'CbCr 4:2:0 (Y4M output: C420jpeg).
    case yuv420
    /// Y'CbCr 4:4:4 (Y4M output: C444).
    case yuv444

    public var code: UInt8 {
        switch self { case .rgb: return 0; case .yuv420: return 1; case .yuv444: return 2 }
    }

    public init?(code: UInt8) {
        guard let c = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = c
    }

    /// The Y4M layout a decoder writes for this sequence.
    public var y4m: Y4MChroma { self == .yuv420 ? .c420jpeg : .c444 }
}

/// What a frame's index entry says it is.
public enum VideoFrameKind: UInt8, Sendable, Codable {
    /// Decodable on its own: a whole int_hyper picture (a seek point).
    case intra = 1
}

/// The bare `wai.video.int_hyper` payload (§4): a 68-byte sequence header, a frame index of
/// 16 bytes per frame, then each frame's int_hyper picture payload, back to back. Parsing
/// checks every header field, every index entry and that the frames fill the payload
/// exactly; the pictures themselves are parsed when they are decoded.
public struct VideoIntHyperPayload: Equatable, Sendable {
    /// Not ASCII, so never "WAI1" (docs/envelope.md) and never text.
    public static let magic: [UInt8] = [0x89, 0x56, 0x49, 0x48]   // \x89 V I H
    public static let version: UInt8 = 1
    public static let headerSize = 68
    public static let indexEntrySize = 16
    /// The only colour matrix defined (§5): BT.601, limited range.
    public static let matrixBT601Limited: UInt8 = 1
    public static let maximumFrames = 1 << 20

    public struct Frame: Equatable, Sendable {
        public var kind: VideoFrameKind
        /// Where the frame's picture lies in the payload.
        public var range: Range<Int>
    }

    public var chroma: VideoChroma
    public var width: Int
    public var height: Int
    public var frameRate: Rational
    /// Pixel aspect ratio; 0:0 is unknown.
    public var aspect: Rational
    /// Frames from one intra frame to the next: 1 here, every frame is intra.
    public var intraPeriod: Int
    public var modelSetID: [UInt8]
    public var frames: [Frame]
    /// The whole payload (the frames' pictures are slices of it).
    public var bytes: [UInt8]

    public func picture(_ frame: Int) -> [UInt8] { Array(bytes[frames[frame].range]) }

    public static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= magic.count && bytes.prefix(magic.count).elementsEqual(magic)
    }

    /// VIH §4's header with one model-set id; every frame intra (intra period 1).
    static let layout = VideoSequenceHeader.Layout(
        magic: magic, idFields: ["model_set_id"],
        periodProblem: { $0 == 1 ? nil : "is \($0); every frame of wai.video.int_hyper is intra, so it must be 1" },
        kindProblem: { _, kind, _ in
            kind == VideoFrameKind.intra.rawValue ? nil : "is \(kind); 1 (intra) is the only kind in wai.video.int_hyper"
        })

    /// A payload from a sequence's description and its frames' int_hyper pictures.
    public static func make(chroma: VideoChroma, width: Int, height: Int, frameRate: Rational, aspect: Rational,
                            modelSetID: [UInt8], pictures: [[UInt8]]) -> [UInt8] {
        VideoSequenceHeader.make(layout, chroma: chroma, width: width, height: height, frameRate: frameRate, aspect: aspect,
                                 intraPeriod: 1, modelSetIDs: [modelSetID],
                                 frames: pictures.map { (kind: VideoFrameKind.intra.rawValue, bytes: $0) })
    }

    public static func parse(_ bytes: [UInt8]) throws -> VideoIntHyperPayload {
        let h: VideoSequenceHeader
        do { h = try VideoSequenceHeader.parse(bytes, layout) } catch let e as VideoSequenceHeaderError { throw VideoPayloadError(e) }
        return VideoIntHyperPayload(chroma: h.chroma, width: h.width, height: h.height, frameRate: h.frameRate, aspect: h.aspect,
                                    intraPeriod: h.intraPeriod, modelSetID: h.modelSetIDs[0],
                                    frames: h.frames.map { Frame(kind: .intra, range: $0.range) }, bytes: bytes)
    }
}
