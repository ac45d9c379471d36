/// The bare `wai.neural.int_hyper` payload (docs/capabilities/int_hyper.md §4): a fixed
/// 58-byte header, then the z stream and the y stream — one rANS stream each in version 1
/// (docs/entropy-coding.md §5), lane streams in version 2 (§8 there).
/// Parsing checks the header's own fields, that the streams fill the payload exactly and,
/// in version 2, each stream's lane table; what depends on the model set (id, symbol
/// counts) is checked by the decoder.
public struct IntHyperPayload: Equatable, Sendable {
    /// Not ASCII, so never "WAI1" (docs/envelope.md) and never text.
    public static let magic: [UInt8] = [0x89, 0x49, 0x48, 0x50]   // \x89 I H P

    /// How the two streams are coded (docs/capabilities/int_hyper.md §4); the header is the same.
    public enum Version: UInt8, Sendable, CaseIterable, Codable {
        /// One rANS stream per latent, decoded serially.
        case v1 = 1
        /// Interleaved lanes per latent, decoded on every core.
        case v2 = 2
    }
    /// What the host's encoder writes unless told otherwise.
    public static let defaultVersion = Version.v2
    public static let headerSize = 58
    public static let maximumDimension = 65535
    /// The smallest rANS stream (the flushed state).
    public static let minimumStreamLength = 4

    public var version: Version
    public var width: Int
    public var height: Int
    public var modelSetID: [UInt8]
    public var zCount: Int
    public var yCount: Int
    public var zStream: [UInt8]
    public var yStream: [UInt8]

    /// `version` says how the streams were coded: `.v1` for RansEncoder streams, `.v2` for
    /// RansLaneEncoder ones.
    public init(version: Version = .v1, width: Int, height: Int, modelSetID: [UInt8], zCount: Int, yCount: Int,
                zStream: [UInt8], yStream: [UInt8]) {
        self.version = version
        self.width = width; self.height = height; self.modelSetID = modelSetID
        self.zCount = zCount; self.yCount = yCount; self.zStream = zStream; self.yStream = yStream
    }

    public static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= magic.count && bytes.prefix(magic.count).elementsEqual(magic)
    }

    public func serialized() -> [UInt8] {
        var out = Self.magic
        out.reserveCapacity(Self.headerSize + zStream.count + yStream.count)
        out.append(version.rawValue)
        out.append(0)   // flags
        le16(&out, width); le16(&out, height)
        out += modelSetID
        le32(&out, zCount); le32(&out, zStream.count)
        le32(&out, yCount); le32(&out, yStream.count)
        return out + zStream + yStream
    }

    public static func parse(_ bytes: [UInt8]) throws -> IntHyperPayload {
        var r = FieldReader(bytes) { IntHyperPayloadError.truncated(field: $0, offset: $1, needed: $2, available: $3) }
        let m = try r.take(4, "magic")
        guard m.elementsEqual(magic) else {
            throw IntHyperPayloadError.badMagic(found: Array(m))
        }
        let v = try r.u8("version")
        guard let version = Version(rawValue: v) else { throw IntHyperPayloadError.unsupportedVersion(v) }
        let flags = try r.u8("flags")
        guard flags == 0 else { throw IntHyperPayloadError.invalidField(field: "flags", offset: 5, problem: "is \(flags), must be 0") }
        let width = try r.u16("width"), height = try r.u16("height")
        guard width >= 1 else { throw IntHyperPayloadError.invalidField(field: "width", offset: 6, problem: "is 0; 1…65535 allowed") }
        guard height >= 1 else { throw IntHyperPayloadError.invalidField(field: "height", offset: 8, problem: "is 0; 1…65535 allowed") }
        let id = Array(try r.take(32, "model_set_id"))
        let zCount = try r.u32("z_count"), zLength = try r.u32("z_length")
        let yCount = try r.u32("y_count"), yLength = try r.u32("y_length")
        for (field, offset, length) in [("z_length", 46, zLength), ("y_length", 54, yLength)] where length < minimumStreamLength {
            throw IntHyperPayloadError.invalidField(field: field, offset: offset,
                                                    problem: "is \(length); a rANS stream has at least \(minimumStreamLength) bytes")
        }
        // Compared before anything is copied: absurd lengths cost nothing.
        let remaining = bytes.count - headerSize
        guard zLength + yLength == remaining else {
            if zLength + yLength > remaining {
                throw IntHyperPayloadError.truncated(field: zLength > remaining ? "z stream" : "y stream",
                                                     offset: headerSize + min(zLength, remaining),
                                                     needed: zLength + yLength, available: remaining)
            }
            throw IntHyperPayloadError.trailingBytes(count: remaining - zLength - yLength, offset: headerSize + zLength + yLength)
        }
        let z = Array(bytes[headerSize..<(headerSize + zLength)])
        let y = Array(bytes[(headerSize + zLength)...])
        if version == .v2 {
            // The lane tables are bounded by the stream lengths just checked (§4.1).
            for (name, stream) in [("z", z), ("y", y)] {
                do { _ = try RansLanes.laneRanges(stream) } catch let e as RansLaneError {
                    throw IntHyperPayloadError.lanes(name: name, error: e)
                }
            }
        }
        return IntHyperPayload(version: version, width: width, height: height, modelSetID: id, zCount: zCount,
                               yCount: yCount, zStream: z, yStream: y)
    }

    private func le16(_ out: inout [UInt8], _ v: Int) {
        out += [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)]
    }

    private func le32(_ out: inout [UInt8], _ v: Int) {
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }
}
