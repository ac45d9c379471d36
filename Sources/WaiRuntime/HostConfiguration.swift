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
    /// Time limit in seconds for the first graph_prepare of each unit in a probe, where
    /// drivers build their programs (docs/probe.md §3); `probeTimeout` when that is longer.
    public var probePrepareTimeout: Double = 120
    /// Time limit in seconds for one prepare or run of a real graph.
    public var runTimeout: Double
    /// How many plugins are probed at once (units of one plugin one after another, in its
    /// one worker).
    public var probeParallelism: Int
    /// How often runs on plugin units are spot-checked against the reference (docs/probe.md §7).
    public var spotCheck: SpotCheckPolicy
    /// The unit a run uses when the caller names none (`--unit` absent, a NULL unit in the
    /// C API): the configuration's `unit`, else the best accepted one.
    public var defaultUnit: UnitSelection = .best
    /// Units hidden from the host: never probed, listed or run on (docs/configuration.md §4).
    public var unitFilter: UnitFilter = .all
    /// A configuration file line or variable that did not parse; the host refuses to probe
    /// or run with it, so a typo is never silently ignored.
    public var configurationError: ConfigurationError?

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

    /// The configuration the `waihost` CLI and `waihost_open` start from
    /// (docs/configuration.md): defaults, then `/etc/waihost/waihost.conf`, then
    /// `$XDG_CONFIG_HOME/waihost/waihost.conf`, then the environment (WAI_PLUGIN_PATH,
    /// WAIHOST_CACHE_DIR / XDG_CACHE_HOME / HOME, WAIHOST_UNIT_WORKER, WAIHOST_UNIT,
    /// WAIHOST_HIDE, WAIHOST_VISIBLE, WAIHOST_SPOT_CHECK, WAIHOST_PROBE_TIMEOUT,
    /// WAIHOST_PROBE_PREPARE_TIMEOUT, WAIHOST_RUN_TIMEOUT), each later one overriding. A bad file line or variable is kept in
    /// `configurationError`, which the host's probe and runs throw.
    public static func fromEnvironment() -> HostConfiguration {
        resolve(environment: Environment.current, systemConfig: systemConfigFile,
                executable: executablePath(), library: libraryPath())
    }

    /// The system-wide configuration file (FHS: host-specific configuration under /etc).
    public static let systemConfigFile = "/etc/waihost/waihost.conf"

    /// `$XDG_CONFIG_HOME/waihost/waihost.conf` (used when absolute), else
    /// `~/.config/waihost/waihost.conf`; nil without either.
    public static func userConfigFile(_ env: [String: String]) -> String? {
        if let x = env["XDG_CONFIG_HOME"], x.hasPrefix("/") { return x + "/waihost/waihost.conf" }
        if let h = env["HOME"], !h.isEmpty { return h + "/.config/waihost/waihost.conf" }
        return nil
    }

    /// fromEnvironment() with everything it reads passed in (tests give their own).
    static func resolve(environment env: [String: String], systemConfig: String?,
                        executable: String?, library: String?) -> HostConfiguration {
        var problem: ConfigurationError?
        var settings = ConfigLayer()
        for file in [systemConfig, userConfigFile(env)].compactMap({ $0 }) where problem == nil {
            do { settings = settings.overridden(by: try ConfigFile.load(path: file)) } catch { problem = error }
        }
        if problem == nil {
            do { settings = settings.overridden(by: try environmentLayer(env)) } catch { problem = error }
        }
        var c = HostConfiguration(pluginDirectories: pluginSearchPath(environment: env, configured: settings.pluginPath,
                                                                      executable: executable, library: library),
                                  cacheDirectory: defaultCacheDirectory(env),
                                  unitWorker: defaultUnitWorker(env, executable: executable, library: library),
                                  probeTimeout: settings.probeTimeout ?? 20,
                                  runTimeout: settings.runTimeout ?? 120,
                                  spotCheck: settings.spotCheck ?? .everyRun)
        c.probePrepareTimeout = settings.probePrepareTimeout ?? 120
        c.defaultUnit = settings.unit ?? .best
        c.unitFilter = UnitFilter(hide: settings.hide ?? [], visible: settings.visible)
        c.configurationError = problem
        return c
    }

    /// The variables that override the configuration files, read as the files' keys are.
    static func environmentLayer(_ env: [String: String]) throws(ConfigurationError) -> ConfigLayer {
        var layer = ConfigLayer()
        let variables: [(String, ConfigKey)] = [
            ("WAIHOST_UNIT", .unit), ("WAIHOST_HIDE", .hide), ("WAIHOST_VISIBLE", .visible),
            ("WAIHOST_SPOT_CHECK", .spotCheck), ("WAIHOST_PROBE_TIMEOUT", .probeTimeout),
            ("WAIHOST_PROBE_PREPARE_TIMEOUT", .probePrepareTimeout), ("WAIHOST_RUN_TIMEOUT", .runTimeout),
        ]
        for (name, key) in variables {
            guard let value = env[name], !value.isEmpty else { continue }
            do { try layer.set(key, value) } catch {
                throw ConfigurationError(location: name, reason: error.reason)
            }
        }
        return layer
    }

    /// Where plugins are looked for, in order (docs/configuration.md §1): WAI_PLUGIN_PATH,
    /// the configuration's plugin_path, `$XDG_DATA_HOME/waihost/plugins.d`, the folders
    /// beside the program (defaultPluginDirectories), `waihost/plugins.d` beside the
    /// library WaiHost was loaded from, `/usr/local/lib/waihost/plugins.d`,
    /// `/usr/lib/waihost/plugins.d`. Named folders are always listed (one that cannot be
    /// read becomes a `failed` row); the others only when they exist.
    static func pluginSearchPath(environment env: [String: String], configured: [String]?,
                                 executable: String?, library: String?) -> [String] {
        var dirs: [String] = []
        func add(_ d: String) { if !dirs.contains(d) { dirs.append(d) } }
        (env["WAI_PLUGIN_PATH"] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }.forEach(add)
        (configured ?? []).forEach(add)
        var found: [String] = []
        if let data = userDataDirectory(env) { found.append(data + "/waihost/plugins.d") }
        found += defaultPluginDirectories(executable: executable)
        if let lib = library, lib != executable { found.append(parent(lib) + "/waihost/plugins.d") }
        found += ["/usr/local/lib/waihost/plugins.d", "/usr/lib/waihost/plugins.d"]
        for d in found where isDirectory(d) { add(d) }
        return dirs
    }

    /// `$XDG_DATA_HOME` (when absolute), else `~/.local/share`.
    static func userDataDirectory(_ env: [String: String]) -> String? {
        if let x = env["XDG_DATA_HOME"], x.hasPrefix("/") { return x }
        if let h = env["HOME"], !h.isEmpty { return h + "/.local/share" }
        return nil
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

    /// `WAIHOST_UNIT_WORKER`; else `waihost-unit-worker` beside the object WaiHost is linked
    /// into (a shared library or the program), else beside the program; else the install
    /// locations: `waihost/` beside the library (`<prefix>/lib/waihost/`, where `make install`
    /// puts it), `<prefix>/lib/waihost/` and `<prefix>/libexec/waihost/` of the program's
    /// and the library's prefix, then the same under `/usr/local` and `/usr`. PATH is not
    /// searched: an embedding application needs no `waihost` CLI.
    static func defaultUnitWorker(_ env: [String: String], executable: String?, library: String?) -> String? {
        if let p = env["WAIHOST_UNIT_WORKER"], !p.isEmpty { return p }
        var candidates: [String] = []
        for object in [library, executable].compactMap({ $0 }) {
            candidates.append(parent(object) + "/" + unitWorkerName)
        }
        if let library, library != executable { candidates.append(parent(library) + "/waihost/" + unitWorkerName) }
        for object in [executable, library].compactMap({ $0 }) {
            candidates.append(parent(parent(object)) + "/lib/waihost/" + unitWorkerName)
            candidates.append(parent(parent(object)) + "/libexec/waihost/" + unitWorkerName)
        }
        for prefix in ["/usr/local", "/usr"] {
            candidates += [prefix + "/lib/waihost/" + unitWorkerName, prefix + "/libexec/waihost/" + unitWorkerName]
        }
        return candidates.first { access($0, X_OK) == 0 }
    }

    /// The file WaiHost's code was loaded from (dladdr): the program itself when linked
    /// statically, the shared library otherwise.
    package static func libraryPath() -> String? {
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

    package static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    package static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }
}

/// The process environment as a dictionary, read through environ so no Foundation is needed.
package enum Environment {
    package static var current: [String: String] {
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
