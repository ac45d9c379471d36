import WaiHostCLIKit
#if canImport(Glibc)
import Glibc
#endif

// Everything is in WaiHostCLIKit (the table, the parser, the commands), so it is tested
// without spawning this binary.
exit(CLI.main(Array(CommandLine.arguments.dropFirst())))
