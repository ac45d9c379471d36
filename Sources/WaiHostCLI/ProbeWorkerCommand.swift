import WaiHost

/// Internal: what `waihost probe` spawns to probe one unit in its own process.
enum ProbeWorkerCommand: Command {
    static let name = "probe-worker"
    static let summary = "internal: probe one unit out of process"
    static let hidden = true
    static let help = ProbeWorker.usage

    static func run(_ arguments: [String]) throws -> Int32 {
        ProbeWorker.main(arguments)
    }
}
