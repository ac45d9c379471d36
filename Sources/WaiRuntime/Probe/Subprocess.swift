#if canImport(Glibc)
import Glibc
#endif

/// Errno and signal names shared by the unit worker client and the probe's timing.
enum Subprocess {
    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// "SIGSEGV" for 11, and so on; the number alone for anything unusual.
    static func signalName(_ s: Int32) -> String {
        let names: [Int32: String] = [SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGABRT: "SIGABRT",
                                      SIGILL: "SIGILL", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL",
                                      SIGTERM: "SIGTERM", SIGPIPE: "SIGPIPE", SIGTRAP: "SIGTRAP",
                                      SIGSYS: "SIGSYS", SIGINT: "SIGINT"]
        return names[s] ?? "signal \(s)"
    }
}
