import Foundation
import XCTest

/// The variants of Tests/CPlugins/ref_backend.c (docs/backend-abi.md §12): the correct
/// plain-C backend and the deliberately wrong ones, each one -D flag away from it.
enum CPluginVariant: String, CaseIterable {
    case good
    case shiftZeroFill = "SHIFT_ZERO_FILL"
    case tiesDown = "TIES_DOWN"
    case narrowWrap = "NARROW_WRAP"
    case tconvPad = "TCONV_PAD"
    case crash = "CRASH"
    case hang = "HANG"
    case abiMajor = "ABI_MAJOR"
    case tableMajor = "TABLE_MAJOR"
    case shortTable = "SHORT_TABLE"
    case noEntry = "NO_ENTRY"
    case oomLarge = "OOM_LARGE"

    var defines: [String] { self == .good ? [] : ["-DWAI_DEFECT_\(rawValue)"] }

    /// The table name ref_backend.c gives this variant.
    var backendName: String {
        self == .good ? "plainc" : "plainc-" + rawValue.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    var fileName: String { "libWai-\(backendName).so" }
}

/// Why a C plugin could not be built: always with the command and the compiler's words.
struct CPluginBuildError: Error, CustomStringConvertible {
    var description: String
}

/// Compiles test plugins with the system C compiler, each variant once per test process,
/// into one private temporary folder that the last test class removes.
final class CPluginBuilder: @unchecked Sendable {
    static let shared = CPluginBuilder()

    /// The package root, from this file's place in Tests/WaiHostTests.
    let packageRoot: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    var source: String { packageRoot + "/Tests/CPlugins/ref_backend.c" }
    var includeDir: String { packageRoot + "/Sources/BackendABI/include" }

    private let lock = NSLock()
    private var built: [CPluginVariant: String] = [:]
    private var workDir: String?

    /// A fresh folder under the build's private temporary folder.
    func makeDirectory(_ name: String) throws -> String {
        let dir = try root() + "/" + name + "-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The compiled variant's path (compiled on first use).
    func plugin(_ variant: CPluginVariant) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let path = built[variant] { return path }
        let dir = try rootLocked() + "/built"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let out = dir + "/" + variant.fileName
        try compile(source: source, output: out, flags: ["-I", includeDir] + variant.defines)
        built[variant] = out
        return out
    }

    /// Copies compiled variants into `dir` under their own file names.
    func install(_ variants: [CPluginVariant], into dir: String) throws {
        for v in variants {
            try FileManager.default.copyItem(atPath: try plugin(v), toPath: dir + "/" + v.fileName)
        }
    }

    /// cc -std=c11 -O2 -shared -fPIC with warnings as errors: the test plugins stay clean C.
    func compile(source: String, output: String, flags: [String]) throws {
        let cc = try Self.tool("cc", why: "the C plugin tests compile backends with it (apt-get install build-essential)")
        let args = ["-std=c11", "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror"] + flags
            + ["-o", output, source, "-lpthread"]
        let r = try Self.run(cc, args)
        guard r.status == 0 else {
            throw CPluginBuildError(description: "\(cc) \(args.joined(separator: " ")) failed (\(r.status)):\n\(r.stderr)")
        }
    }

    func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        if let workDir { try? FileManager.default.removeItem(atPath: workDir) }
        workDir = nil
        built = [:]
    }

    private func root() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        return try rootLocked()
    }

    private func rootLocked() throws -> String {
        if let workDir { return workDir }
        let dir = NSTemporaryDirectory() + "waihost-cplugins-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        workDir = dir
        return dir
    }

    /// An executable found in PATH, or an error saying what it is needed for.
    static func tool(_ name: String, why: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw CPluginBuildError(description: "\(name) not found in PATH (\(path)): \(why)")
    }

    struct RunResult { var status: Int32; var stdout: String; var stderr: String }

    static func run(_ executable: String, _ arguments: [String],
                    environment: [String: String]? = nil) throws -> RunResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Read both before waiting: a full pipe would otherwise block the child forever.
        let errData = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return RunResult(status: p.terminationStatus,
                         stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData.data, as: UTF8.self))
    }

    /// Written by the reader of stderr before the group is left, read only after the wait.
    private final class DataBox: @unchecked Sendable { var data = Data() }
}
