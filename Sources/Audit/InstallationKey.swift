// Where the audit keeps its long-lived state: the installation key and the spool
// (docs/audit-bundle.md §3, §5).

import Foundation
import WaiCrypto

public enum AuditPaths {
    /// $WAIHOST_CACHE_DIR/audit, else $XDG_CACHE_HOME/waihost/audit, else ~/.cache/waihost/audit.
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let d = environment["WAIHOST_CACHE_DIR"], !d.isEmpty { return d + "/audit" }
        if let x = environment["XDG_CACHE_HOME"], !x.isEmpty { return x + "/waihost/audit" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.cache/waihost/audit"
    }

    public static func installationKey(in dir: String) -> String { dir + "/installation.key" }
    public static func spool(in dir: String) -> String { dir + "/spool" }
}

public enum InstallationKey {
    /// Reads the key file at `path`, creating it (mode 0600, never replacing one) when absent.
    public static func loadOrCreate(path: String) throws -> Ed25519PrivateKey {
        if FileManager.default.fileExists(atPath: path) { return try PrivateKeyFile.read(path: path) }
        let dir = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let key = try Ed25519PrivateKey.generate()
        do { try KeyFile.write(key, path: path) } catch {
            // Another process created it first: use that one.
            if FileManager.default.fileExists(atPath: path) { return try PrivateKeyFile.read(path: path) }
            throw error
        }
        return key
    }
}
