import TestSupport

/// One run of `waihost` (or of a player reading its output) in the codec CLI tests: the exit
/// status, standard output's bytes and standard error.
struct CLIRun {
    var status: Int32
    var stdout: [UInt8]
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }

    /// `executable args` with a private probe cache per run (unless `environment` names one),
    /// `WAIHOST` naming the binary (for shell pipelines that call it) and a probe-worker
    /// deadline a debug build meets (the default 20 s is for release builds); `environment`
    /// adds to that (nil removes a variable, as `Subprocess` takes it). The one way the host
    /// tests run the CLI.
    static func run(_ executable: String, _ args: [String], environment: [String: String?] = [:]) throws -> CLIRun {
        var env: [String: String?] = ["WAIHOST_PROBE_TIMEOUT": "600", "WAIHOST": TestPaths.waihost]
        if environment["WAIHOST_CACHE_DIR"] == nil {
            env["WAIHOST_CACHE_DIR"] = try IntHyperTestSupport.temporaryDirectory("cache")
        }
        env.merge(environment) { _, given in given }
        let r = try Subprocess(executable, args, environment: env).run()
        return CLIRun(status: r.status, stdout: r.stdout, stderr: r.stderrText)
    }
}
