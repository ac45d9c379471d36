#if canImport(Glibc)
import Glibc
#endif

/// What a scan of the plugin folders found: candidate files in search order, and the
/// folders that could not be read (each becomes a `failed` row, never a crash).
public struct PluginScan: Sendable, Equatable {
    public var plugins: [String]
    public var problems: [FolderProblem]

    public struct FolderProblem: Sendable, Equatable, Codable {
        public var path: String
        public var reason: String
    }
}

/// Lists `*.so` files in the configured folders (docs/cli.md, "Plugin search order").
public enum PluginDiscovery {
    public static func scan(directories: [String]) -> PluginScan {
        var scan = PluginScan(plugins: [], problems: [])
        var seen = Set<String>()
        for dir in directories {
            guard let d = opendir(dir) else {
                scan.problems.append(.init(path: dir, reason: String(cString: strerror(errno))))
                continue
            }
            var names: [String] = []
            errno = 0
            while let entry = readdir(d) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name.hasPrefix(".") || !name.hasSuffix(".so") { continue }
                names.append(name)
            }
            closedir(d)
            for name in names.sorted() {
                let path = dir.hasSuffix("/") ? dir + name : dir + "/" + name
                var st = stat()
                // Follows symlinks: a link to a plugin is a plugin; a dangling link is
                // handed on so loading reports it.
                if stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { continue }
                let identity = canonical(path) ?? path
                if seen.insert(identity).inserted { scan.plugins.append(path) }
            }
        }
        return scan
    }

    static func canonical(_ path: String) -> String? {
        guard let r = realpath(path, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }
}
