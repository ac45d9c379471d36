// The isolation overhead benchmark (docs/probe.md §3): a backend in process against the
// same backend in its unit worker. Usage:
//   swift run -c release IsolationBench PLUGIN.so [RUNS] [WIDTH HEIGHT N M]
import WaiHost
#if canImport(Glibc)
import Glibc
#endif

let args = Array(CommandLine.arguments.dropFirst())
guard let plugin = args.first else {
    print("usage: IsolationBench PLUGIN.so [RUNS] [WIDTH HEIGHT N M]")
    exit(2)
}
let numbers = args.dropFirst().compactMap { Int($0) }
let runs = numbers.first ?? 5
let (w, h, n, m) = numbers.count >= 5 ? (numbers[1], numbers[2], numbers[3], numbers[4]) : (768, 512, 128, 192)
guard let worker = HostConfiguration.fromEnvironment().unitWorkerExecutable else {
    print("no waihost-unit-worker found (build it: swift build -c release)")
    exit(1)
}
let dir = "/tmp/waihost-isolation-bench-\(getpid())"
do {
    print(try IsolationBenchmark.run(plugin: plugin, worker: worker, runs: runs, width: w, height: h, n: n, m: m,
                                     modelDirectory: dir))
} catch {
    print("error: \(error)")
    exit(1)
}
