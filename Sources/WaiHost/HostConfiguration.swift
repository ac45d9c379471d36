import WorkerIPC
#if canImport(Glibc)
import Glibc
#endif

/// The version of the host, part of every probe cache key: a new host re-probes.
public enum WaiHostVersion {
    public static let string = "0.1.0"
}

/// Where a BackendHost looks for plugins, caches probe results and finds the unit worker
/// every plugin runs in. `fromEnvironment()` gives what the `waihost` CLI uses
/// (docs/cli.md); library users and tests set the members directly.
public struct HostConfiguration: Sendable, Equatable {
    /// Folders scanned for `*.so` backends, in order. A listed folder that cannot be read
    /// becomes a `failed` row of the probe.
    public var pluginDirectories: [String]
    /// Folder of the probe cache file; nil: never read or write a cache.
    public var cacheDirectory: String?
    /// The `waihost-unit-worker` executable (docs/probe.md §3); nil: none found, and every
    /// unit is `failed` with that reason — never silently the reference.
    public var unitWorkerExecutable: String?
    /// Time limit in seconds for one request to a unit worker while probing and timing
    /// (loading, listing, each prepare and run of a probe graph).
    public var probeTimeout: Double
    /// Time limit in seconds for one prepare or run of a real graph.
    public var runTimeout: Double
    /// How many plugins are probed at once (units of one plugin one after another, in its
    /// one worker).
    public var probeParallelism: Int
    /// How often runs on plugin units are spot-checked against the reference (docs/probe.md §7).
    public var spotCheck: SpotCheckPolicy

    public init(pluginDirectories: [String], cacheDirectory: String?, unitWorker: String?,
                probeTimeout: Double = 20, runTimeout: Double = 120,
                probeParallelism: Int = HostConfiguration.coreCount,
                spotCheck: SpotCheckPolicy = .everyRun) {
        self.pluginDirectories = pluginDirectories
        self.cacheDirectory = cacheDirectory
        self.unitWorkerExecutable = unitWorker
        self.probeTimeout = probeTimeout
        self.runTimeout = runTimeout
        self.probeParallelism = max(1, probeParallelism)
        self.spotCheck = spotCheck
    }

    /// The same, under the name the worker had before it became its own executable.
    public init(pluginDirectories: [String], cacheDirectory: String?, proberExecutable: String?,
                probeTimeout: Double = 20, probeParallelism: Int = HostConfiguration.coreCount) {
        self.init(pluginDirectories: pluginDirectories, cacheDirectory: cacheDirectory, unitWorker: proberExecutable,
                  probeTimeout: probeTimeout, probeParallelism: probeParallelism)
    }

    @available(*, deprecated, renamed: "unitWorkerExecutable")
    public var proberExecutable: String? {
        get { unitWorkerExecutable }
        set { unitWorkerExecutable = newValue }
    }

    public static var coreCount: Int { onlineCoreCount() }

    public static let unitWorkerName = "waihost-unit-worker"

    /// WAI_PLUGIN_PATH, WAIHOST_CACHE_DIR / XDG_CACHE_HOME / HOME, WAIHOST_UNIT_WORKER,
    /// WAIHOST_PROBE_TIMEOUT, WAIHOST_RUN_TIMEOUT, WAIHOST_SPOT_CHECK (every, off, sample:N;
    /// an invalid value keeps the default, every run), and the default plugin folders next to
    /// the executable.
    public static func fromEnvironment() -> HostConfiguration {
        let env = Environment.current
        let exe = executablePath()
        var dirs = (env["WAI_PLUGIN_PATH"] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
        for d in defaultPluginDirectories(executable: exe) where isDirectory(d) && !dirs.contains(d) {
            dirs.append(d)
        }
        func seconds(_ name: String, _ fallback: Double) -> Double {
            if let t = env[name].flatMap(Double.init), t > 0, t.isFinite { return t }
            return fallback
        }
        return HostConfiguration(pluginDirectories: dirs,
                                 cacheDirectory: defaultCacheDirectory(env),
                                 unitWorker: defaultUnitWorker(env, executable: exe, library: libraryPath()),
                                 probeTimeout: seconds("WAIHOST_PROBE_TIMEOUT", 20),
                                 runTimeout: seconds("WAIHOST_RUN_TIMEOUT", 120),
                                 spotCheck: env["WAIHOST_SPOT_CHECK"].flatMap { try? SpotCheckPolicy(parsing: $0) } ?? .everyRun)
    }

    /// Built-in plugin folders, searched after WAI_PLUGIN_PATH when they exist:
    /// `<exe dir>/plugins.d`, `<prefix>/lib/waihost/plugins.d` for `<prefix>/bin/waihost`,
    /// and `<package root>/plugins.d` when the executable lives in a SwiftPM `.build` tree.
    public static func defaultPluginDirectories(executable: String?) -> [String] {
        guard let exe = executable else { return [] }
        let dir = parent(exe)
        var result = [dir + "/plugins.d"]
        if dir.hasSuffix("/bin") { result.append(parent(dir) + "/lib/waihost/plugins.d") }
        let parts = exe.split(separator: "/", omittingEmptySubsequences: false)
        if let build = parts.firstIndex(of: ".build"), build > parts.startIndex {
            result.append(parts[..<build].joined(separator: "/") + "/plugins.d")
        }
        return result
    }

    static func defaultCacheDirectory(_ env: [String: String]) -> String? {
        if let d = env["WAIHOST_CACHE_DIR"], !d.isEmpty { return d }
        if let x = env["XDG_CACHE_HOME"], x.hasPrefix("/") { return x + "/waihost" }
        if let h = env["HOME"], !h.isEmpty { return h + "/.cache/waihost" }
        return nil
    }

    /// The search order of docs/probe.md §3: `WAIHOST_UNIT_WORKER`; else
    /// `waihost-unit-worker` beside the object WaiHost is linked into (a shared library or
    /// the program), else beside the program; else `PREFIX/lib/waihost/`, where `make
    /// install` and scripts/install-plugins.sh put it — for a library in `PREFIX/lib` and a
    /// program in `PREFIX/bin`; else `PREFIX/libexec/waihost/` of the same two prefixes;
    /// else `/usr/local/lib/waihost/`, `/usr/lib/waihost/`, `/usr/local/libexec/waihost/`,
    /// `/usr/libexec/waihost/`. PATH is not searched: an embedding application needs no
    /// `waihost` CLI.
    static func defaultUnitWorker(_ env: [String: String], executable: String?, library: String?) -> String? {
        if let p = env["WAIHOST_UNIT_WORKER"], !p.isEmpty { return p }
        var candidates: [String] = []
        for object in [library, executable].compactMap({ $0 }) {
            candidates.append(parent(object) + "/" + unitWorkerName)
        }
        if let library { candidates.append(parent(library) + "/waihost/" + unitWorkerName) }
        if let executable { candidates.append(parent(parent(executable)) + "/lib/waihost/" + unitWorkerName) }
        for object in [executable, library].compactMap({ $0 }) {
            candidates.append(parent(parent(object)) + "/libexec/waihost/" + unitWorkerName)
        }
        candidates += ["/usr/local/lib/waihost/", "/usr/lib/waihost/", "/usr/local/libexec/waihost/", "/usr/libexec/waihost/"]
            .map { $0 + unitWorkerName }
        return candidates.first { access($0, X_OK) == 0 }
    }

    /// The file WaiHost's code was loaded from (dladdr): the program itself when linked
    /// statically, the shared library otherwise.
    static func libraryPath() -> String? {
        wipc_module_path().map { String(cString: $0) }
    }

    /// The running executable, symlinks resolved (Linux: /proc/self/exe).
    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        buffer[n] = 0
        return String(cString: buffer)
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }
}

/// The process environment as a dictionary, read through environ so no Foundation is needed.
enum Environment {
    static var current: [String: String] {
        var result: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") {
                result[String(s[..<eq])] = String(s[s.index(after: eq)...])
            }
            p += 1
        }
        return result
    }
}
