import Foundation
import TestSupport
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
    case warpBorder = "WARP_BORDER"
    case warpAway = "WARP_AWAY"
    /// Exact, but an ABI 1.0 backend: knows no warp (docs/backend-abi.md §2.4).
    case noWarp = "NO_WARP"

    var defines: [String] {
        switch self {
        case .good: return []
        case .noWarp: return ["-DWAI_NO_WARP"]
        default: return ["-DWAI_DEFECT_\(rawValue)"]
        }
    }

    /// The table name ref_backend.c gives this variant.
    var backendName: String {
        switch self {
        case .good: return "plainc"
        case .noWarp: return "plainc-abi-1-0"
        default: return "plainc-" + rawValue.lowercased().replacingOccurrences(of: "_", with: "-")
        }
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

    /// The package root.
    var packageRoot: String { TestPaths.repositoryRoot }

    var source: String { packageRoot + "/Tests/CPlugins/ref_backend.c" }
    var includeDir: String { packageRoot + "/Sources/BackendABI/include" }

    private let lock = NSLock()
    private var built: [CPluginVariant: String] = [:]
    private let workDir = TemporaryRoot("waihost-cplugins")

    /// A fresh folder under the build's private temporary folder.
    func makeDirectory(_ name: String) throws -> String { try workDir.directory(name) }

    /// The compiled variant's path (compiled on first use).
    func plugin(_ variant: CPluginVariant) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let path = built[variant] { return path }
        let dir = try workDir.rootPath() + "/built"
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
        let r = try Subprocess(cc, args).run()
        guard r.status == 0 else {
            throw CPluginBuildError(description: "\(r.command) failed (\(r.termination)):\n\(r.stderrText)")
        }
    }

    func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        workDir.removeAll()
        built = [:]
    }

    /// An executable found in PATH, or an error saying what it is needed for.
    static func tool(_ name: String, why: String) throws -> String {
        guard let path = Subprocess.which(name) else {
            throw CPluginBuildError(description: "\(name) not found in PATH (\(ProcessInfo.processInfo.environment["PATH"] ?? "")): \(why)")
        }
        return path
    }
}
