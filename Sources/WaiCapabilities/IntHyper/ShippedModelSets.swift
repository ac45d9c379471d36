/// The trained model sets shipped in the repository (`samples/models/q1` … `q3`,
/// docs/capabilities/int_hyper.md §13): what `waihost encode --quality Q` uses, and what
/// `waihost decode` tries when no `--model` is given. Found through WAIHOST_MODEL_DIR, else
/// `samples/models` in the nearest folder above the executable that has one (a build under
/// `.build/` of a checkout), else the installed `<prefix>/share/waihost/models`
/// (docs/configuration.md §5), else `samples/models` in the current folder.
public enum ShippedModelSets {
    public static let qualities = 1...3
    public static let defaultQuality = 2

    public static func folder(quality: Int, environment: [String: String]? = nil) throws -> String {
        guard qualities.contains(quality) else {
            throw ModelSetError(file: "--quality \(quality)", problem: "shipped qualities are \(qualities.lowerBound)…\(qualities.upperBound)")
        }
        return try root(environment) + "/q\(quality)"
    }

    /// Every shipped set's folder, lowest quality first.
    public static func folders(environment: [String: String]? = nil) throws -> [String] {
        let r = try root(environment)
        return qualities.map { "\(r)/q\($0)" }
    }

    /// The shipped set whose id (from its manifest's hashes) a payload names, if any.
    public static func folder(forID id: [UInt8], environment: [String: String]? = nil) throws -> String? {
        for f in try folders(environment: environment) {
            guard let bytes = try? LocalFile.read(f + "/" + IntHyperManifest.fileName, limit: 1 << 20),
                  let manifest = try? IntHyperManifest.parse(bytes) else { continue }
            if IntHyperManifest.modelSetID(fileHashes: manifest.files) == id { return f }
        }
        return nil
    }

    /// The shipped wai.video.int_motion set (`samples/models/motion`,
    /// docs/capabilities/video_int_motion.md §2), what `waihost decode` tries for a sequence
    /// when no `--motion-model` is given.
    public static func motionFolder(environment: [String: String]? = nil) throws -> String {
        try root(environment) + "/motion"
    }

    /// The shipped int_motion set when a sequence's P-frames name its id, else nil.
    public static func motionFolder(forID id: [UInt8], environment: [String: String]? = nil) throws -> String? {
        folder(try motionFolder(environment: environment), ifItsIDIs: id) {
            MotionManifest.modelSetID(fileHashes: try MotionManifest.parse($0).files)
        }
    }

    /// The shipped wai.video.int_cond set (`samples/models/cond`,
    /// docs/capabilities/video_int_cond.md §2), what `waihost decode` tries for a conditionally
    /// coded sequence when no `--cond-model` is given.
    public static func condFolder(environment: [String: String]? = nil) throws -> String {
        try root(environment) + "/cond"
    }

    /// The shipped int_cond set when a sequence's P-frames name its id, else nil.
    public static func condFolder(forID id: [UInt8], environment: [String: String]? = nil) throws -> String? {
        folder(try condFolder(environment: environment), ifItsIDIs: id) {
            CondManifest.modelSetID(fileHashes: try CondManifest.parse($0).files)
        }
    }

    /// `folder` when its manifest (read and parsed by `setID`) gives the id `id`; nil when it
    /// does not, or has no readable manifest.
    private static func folder(_ folder: String, ifItsIDIs id: [UInt8], setID: ([UInt8]) throws -> [UInt8]) -> String? {
        guard let bytes = try? LocalFile.read(folder + "/manifest.json", limit: 1 << 20),
              let found = try? setID(bytes) else { return nil }
        return found == id ? folder : nil
    }

    static func root(_ environment: [String: String]?) throws -> String {
        let env = environment ?? Environment.current
        if let d = env["WAIHOST_MODEL_DIR"], !d.isEmpty { return d }
        var tried: [String] = []
        if let exe = HostConfiguration.executablePath() {
            var dir = HostConfiguration.parent(exe)
            while true {
                let candidate = (dir == "/" ? "" : dir) + "/samples/models"
                tried.append(candidate)
                if HostConfiguration.isDirectory(candidate) { return candidate }
                let up = HostConfiguration.parent(dir)
                if up == dir { break }
                dir = up
            }
        }
        // Installed (`make install`): `<prefix>/share/waihost/models` of the program's or the
        // library's prefix, then /usr/local and /usr.
        var installed = [HostConfiguration.executablePath(), HostConfiguration.libraryPath()].compactMap { $0 }.map {
            HostConfiguration.parent(HostConfiguration.parent($0)) + "/share/waihost/models"
        }
        installed += ["/usr/local/share/waihost/models", "/usr/share/waihost/models"]
        for candidate in installed where !tried.contains(candidate) {
            tried.append(candidate)
            if HostConfiguration.isDirectory(candidate) { return candidate }
        }
        if HostConfiguration.isDirectory("samples/models") { return "samples/models" }
        tried.append("samples/models")
        throw ModelSetError(file: "samples/models", problem: "no shipped model sets found (looked in "
            + tried.joined(separator: ", ") + "); set WAIHOST_MODEL_DIR or give --model DIR")
    }
}
