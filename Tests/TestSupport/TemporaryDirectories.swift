// Private temporary folders for the tests: each created new (mkdtemp), each removed again.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

public struct TemporaryDirectoryError: Error, CustomStringConvertible {
    public let description: String
}

/// Creates a new folder under the system temporary folder, named `prefix-XXXXXX`.
public func makeTemporaryDirectory(_ prefix: String) throws -> String {
    // NSTemporaryDirectory() ends in "/"; paths the tests compare must not hold "//".
    let template = (NSTemporaryDirectory() as NSString).appendingPathComponent("\(prefix)-XXXXXX")
    var bytes = Array(template.utf8CString)
    guard let p = mkdtemp(&bytes) else {
        throw TemporaryDirectoryError(description: "mkdtemp \(template): \(String(cString: strerror(errno)))")
    }
    return String(cString: p)
}

/// A new folder, removed with everything in it when the value is released (at the end of
/// the test that holds it).
public final class TempDir: @unchecked Sendable {
    public let path: String
    public init(_ prefix: String = "waihost-test") throws { path = try makeTemporaryDirectory(prefix) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Folders under one root per test process, for what outlives a single test (plugins built
/// once, caches shared by a class); the test classes call `removeAll` in their class tearDown.
public final class TemporaryRoot: @unchecked Sendable {
    private let prefix: String
    private let lock = NSLock()
    private var root: String?

    public init(_ prefix: String) { self.prefix = prefix }

    /// A new folder `name-XXXXXX` under the root (made on first use).
    public func directory(_ name: String) throws -> String {
        var template = Array((try rootPath() + "/\(name)-XXXXXX").utf8CString)
        guard let p = mkdtemp(&template) else {
            throw TemporaryDirectoryError(description: "mkdtemp under \(try rootPath()): \(String(cString: strerror(errno)))")
        }
        return String(cString: p)
    }

    /// The root itself.
    public func rootPath() throws -> String {
        lock.lock(); defer { lock.unlock() }
        if let root { return root }
        let made = try makeTemporaryDirectory(prefix)
        root = made
        return made
    }

    /// Removes the root and everything under it; the next `directory` makes a new root.
    public func removeAll() {
        lock.lock(); defer { lock.unlock() }
        if let root { try? FileManager.default.removeItem(atPath: root) }
        root = nil
    }
}
