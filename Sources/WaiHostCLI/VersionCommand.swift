import WaiHost
import BackendABI

enum VersionCommand: Command {
    static let name = "version"
    static let summary = "print the host, backend ABI and probe suite versions"
    static let help = """
        usage: waihost version

        Prints the host version, the backend ABI version it speaks and the probe suite
        version (both part of the probe cache key).
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard arguments.isEmpty else { throw UsageError(message: "version takes no arguments") }
        Output.out("waihost \(WaiHostVersion.string)")
        Output.out("backend ABI \(WAI_ABI_MAJOR).\(WAI_ABI_MINOR)")
        Output.out("probe suite \(ProbeSuite.version)")
        return ExitCode.ok
    }
}
