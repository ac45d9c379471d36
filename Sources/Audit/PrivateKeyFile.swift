// Signing keys the audit trusts (the owner key that signs acknowledgements, the installation
// key that binds every session key) are refused when anyone but their owner can read or
// write the file: a key another local user can read lets that user forge acknowledgements
// or bindings, so — as OpenSSH does with private keys — it is an error, not a warning.

import Foundation
import WaiCrypto
#if canImport(Glibc)
import Glibc
#endif

public enum PrivateKeyFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooOpen(path: String, mode: String)
    case notAFile(path: String)

    public var description: String {
        switch self {
        case .tooOpen(let p, let m):
            return "key file \(p) has mode \(m): group or others can read or write it, so the key is refused (run: chmod 600 \(p))"
        case .notAFile(let p): return "key file \(p) is not a regular file"
        }
    }
}

public enum PrivateKeyFile {
    /// Reads the key at `path` after checking its mode allows only its owner (0600 or 0400).
    public static func read(path: String) throws -> Ed25519PrivateKey {
        var st = stat()
        if stat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFREG else { throw PrivateKeyFileError.notAFile(path: path) }
            let mode = st.st_mode & 0o7777
            guard mode & 0o077 == 0 else {
                throw PrivateKeyFileError.tooOpen(path: path, mode: "0" + String(mode, radix: 8))
            }
        }
        return try KeyFile.read(path: path)
    }
}
