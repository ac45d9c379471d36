import BackendABI

/// A refused call: the ABI status and the one-line message for the caller's buffer
/// (docs/backend-abi.md §4).
package struct BackendFailure: Error {
    package let status: wai_status
    package let message: String

    package init(status: wai_status, message: String) { self.status = status; self.message = message }

    package static func invalid(_ message: String) -> BackendFailure { .init(status: WAI_ERR_INVALID_ARGUMENT, message: message) }
    package static func unsupported(_ message: String) -> BackendFailure { .init(status: WAI_ERR_UNSUPPORTED, message: message) }
    package static func outOfMemory(_ message: String) -> BackendFailure { .init(status: WAI_ERR_OUT_OF_MEMORY, message: message) }
}

/// Writes `message` NUL-terminated into the caller-owned buffer, truncated to `capacity − 1`
/// bytes without splitting a UTF-8 sequence. Nothing is written when there is no room.
package func writeMessage(_ message: String, to buffer: UnsafeMutablePointer<CChar>?, capacity: Int) {
    guard let buffer, capacity > 0 else { return }
    var bytes = Array(message.utf8.prefix(capacity - 1))
    if bytes.count == capacity - 1, bytes.count < message.utf8.count {
        // Drop a partial sequence at the cut: continuation bytes are 10xxxxxx.
        while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
        if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
    }
    for (i, b) in bytes.enumerated() { buffer[i] = CChar(bitPattern: b) }
    buffer[bytes.count] = 0
}

/// Runs one ABI call's body, turning a thrown failure into its status and message.
package func reporting(_ err: UnsafeMutablePointer<CChar>?, _ capacity: Int, backend: String = "cpu", _ body: () throws -> Void) -> wai_status {
    do {
        try body()
        return WAI_OK
    } catch let failure as BackendFailure {
        writeMessage(failure.message, to: err, capacity: capacity)
        return failure.status
    } catch {
        writeMessage("\(backend) backend: \(error)", to: err, capacity: capacity)
        return WAI_ERR_INTERNAL
    }
}

/// Runs one call into a backend's C runtime with a message buffer of `messageCapacity` bytes;
/// a non-zero status becomes a BackendFailure with the runtime's message after `what`.
package func callRuntime(_ what: String, messageCapacity: Int, _ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws {
    var buffer = [CChar](repeating: 0, count: max(1, messageCapacity))
    let status = buffer.withUnsafeMutableBufferPointer { b in b.baseAddress.map { body($0, b.count) } ?? 0 }
    guard status == 0 else {
        let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw BackendFailure(status: wai_status(UInt32(bitPattern: status)), message: "\(what): \(message)")
    }
}
