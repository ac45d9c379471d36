/// The closed-loop GOP encode both predictive capabilities share (each spec's §7): the frame
/// count and GOP checked, intra frames by `IntHyperEncoder` and decoded by `IntHyperDecoder`
/// for the next reference, P-frames by the capability on the previous reconstruction (so each
/// next reference is exactly the frame the decoder will have), then the payload and envelope.
enum PredictiveVideoEncoding {
    /// One P-frame's encode: its body, its reconstruction and its last graph run.
    typealias PredictedFrame = (bytes: [UInt8], image: RGB8Image, report: RunReport)

    /// `requireEncoderFiles` refuses sets loaded without their encoder files; `prepare` runs once
    /// the size is checked (it instantiates the P-frame graphs) and gives the encode of a frame
    /// on its reference.
    static func encode<P: PredictiveVideoPayloadCoding>(
        _: P.Type, capability: String, count: Int, frame: (Int) throws -> RGB8Image, chroma: VideoChroma, width: Int, height: Int,
        frameRate: Rational, aspect: Rational, gop: Int, intraSet: IntHyperModelSet, predictedModelSetID: [UInt8], runner: GraphRunner,
        envelope: Bool, requireEncoderFiles: () throws -> Void,
        prepare: () throws -> (_ current: RGB8Image, _ reference: RGB8Image) throws -> PredictedFrame
    ) throws -> PredictiveVideoEncoded {
        typealias E = PredictiveVideoPayloadError<P>
        let maximumFrames = VideoIntHyperPayload.maximumFrames, gops = VideoIntMotionPayload.gopRange
        guard (1...maximumFrames).contains(count) else {
            throw E.invalidField(field: "frame_count", offset: 32, problem: "would be \(count); 1…\(maximumFrames) allowed")
        }
        guard gops.contains(gop) else {
            throw E.invalidField(field: "intra_period", offset: 28, problem: "would be \(gop); 1…\(gops.upperBound) allowed")
        }
        try requireEncoderFiles()
        try IntHyperSizeLimit.check(intraSet, width: width, height: height, encoding: true)
        let predicted = try prepare()
        let intraEncoder = IntHyperEncoder(modelSet: intraSet), intraDecoder = IntHyperDecoder(modelSet: intraSet)
        var frames: [[UInt8]] = [], recon: [RGB8Image] = [], reports: [RunReport] = []
        for i in 0..<count {
            let image = try frame(i)
            guard image.width == width, image.height == height else {
                throw E.frameMismatch(frame: i, offset: 0, problem: "the frame is \(image.width)×\(image.height), the sequence \(width)×\(height)")
            }
            if let ref = recon.last, VideoIntMotionPayload.kind(ofFrame: i, gop: gop) == .predicted {
                let p = try predicted(image, ref)
                frames.append(p.bytes); recon.append(p.image); reports.append(p.report)
            } else {
                let r = try intraEncoder.encode(image, runner: runner)
                let d = try intraDecoder.decode(r.payload, runner: runner)
                frames.append(r.bytes); recon.append(d.image); reports.append(d.synthesisReport)
            }
        }
        let payload = P.make(chroma: chroma, width: width, height: height, frameRate: frameRate, aspect: aspect, gop: gop,
                             modelSetIDs: [intraSet.id, predictedModelSetID], frames: frames)
        let bytes = envelope ? try Envelope.encode(capability: capability, payload: payload) : payload
        return PredictiveVideoEncoded(bytes: bytes, frameBytes: frames.map(\.count), reconstructions: recon, reports: reports)
    }
}
