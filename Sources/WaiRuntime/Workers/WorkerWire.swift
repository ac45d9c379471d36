import WorkerIPC
#if canImport(Glibc)
import Glibc
#endif

/// The unit worker's messages (docs/probe.md §3, "Unit worker protocol"): a 16-byte
/// header — magic, protocol version, kind, body length, tag — then the body, on a private
/// AF_UNIX stream. A request's tag comes back on its reply, so a stale or forged reply is a
/// protocol violation, never mistaken for an answer. Tensors never travel here: they live
/// in the shared memory handed over with `prepare`.
enum WorkerWire {
    static let magic: UInt32 = 0x5541_5757   // "WWAU" little-endian
    /// 2: a run's reply carries when graph_run started and returned.
    static let version: UInt16 = 2
    static let headerSize = 16
    /// Requests carry a whole graph container (docs/model-container.md §8 bounds it).
    static let maxRequestBody = ModelContainer.maxContainerSize + 4096
    /// Replies are names, unit lists, handles and messages: small. The bound is checked
    /// before anything is allocated for a reply that a plugin could have forged.
    static let maxReplyBody = 1 << 20

    enum Kind: UInt16 {
        case load = 1, prepare = 2, run = 3, release = 4, openChannel = 5
        case ok = 100, error = 101
    }

    struct Header: Equatable {
        var kind: UInt16
        var length: UInt32
        var tag: UInt32

        var bytes: [UInt8] {
            var w = ByteWriter()
            w.u32(WorkerWire.magic); w.u16(WorkerWire.version); w.u16(kind); w.u32(length); w.u32(tag)
            return w.bytes
        }

        /// nil when the bytes are not a header of this protocol.
        init?(_ bytes: [UInt8]) {
            guard bytes.count == WorkerWire.headerSize else { return nil }
            var r = ByteReader(bytes, source: "unit worker message header", end: bytes.count)
            guard let m = try? r.u32("magic"), m == WorkerWire.magic,
                  let v = try? r.u16("version"), v == WorkerWire.version,
                  let k = try? r.u16("kind"), let l = try? r.u32("length"), let t = try? r.u32("tag") else { return nil }
            kind = k; length = l; tag = t
        }

        init(kind: Kind, length: Int, tag: UInt32) {
            self.kind = kind.rawValue; self.length = UInt32(length); self.tag = tag
        }
    }

    /// Writes one message; `fd` (when given) travels with it.
    static func send(_ sock: Int32, kind: Kind, tag: UInt32, body: [UInt8], fd: Int32 = -1) -> Int32 {
        let message = Header(kind: kind, length: body.count, tag: tag).bytes + body
        return message.withUnsafeBytes { wipc_send(sock, $0.baseAddress, $0.count, fd) }
    }

    /// The failure of a blocking read, as the worker side sees it.
    enum ReadFailure: Error { case closed, broken(String) }

    /// Blocking read of exactly `count` bytes; a descriptor arriving with them is returned.
    static func readExactly(_ sock: Int32, _ count: Int) -> Result<(bytes: [UInt8], fd: Int32), ReadFailure> {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        var passed: Int32 = -1
        while got < count {
            var fd: Int32 = -1
            let n = bytes.withUnsafeMutableBytes { wipc_recv(sock, $0.baseAddress! + got, count - got, &fd) }
            if fd >= 0 { if passed < 0 { passed = fd } else { close(fd) } }
            if n == 0 { if passed >= 0 { close(passed) }; return .failure(.closed) }
            if n < 0 { if passed >= 0 { close(passed) }; return .failure(.broken(String(cString: strerror(Int32(-n))))) }
            got += n
        }
        return .success((bytes, passed))
    }
}

/// Reading message bodies: little-endian fields, every count bounded by what remains.
extension ByteReader {
    mutating func wireString(_ field: String) throws -> String {
        try string(field, maxLength: WorkerWire.maxReplyBody)
    }

    mutating func u64(_ field: String) throws -> UInt64 { UInt64(bitPattern: try i64(field)) }
}

extension ByteWriter {
    mutating func u64(_ v: UInt64) { i64(Int64(bitPattern: v)) }
}
