import Foundation
import TestSupport
import XCTest

/// The variants of Tests/CPlugins/defect_backend.c: the plain-C backend, wrong the way SIMD
/// and GPU kernels go wrong, one -DDEFECT_* flag each (the file's header says how).
enum DefectVariant: String, CaseIterable {
    case none = "NONE"
    case tileHalo = "TILE_HALO"
    case index16 = "INDEX16"
    case lastChunk = "LAST_CHUNK"
    case tailChannels = "TAIL_CHANNELS"
    case gdn16 = "GDN16"
    case firstRun = "FIRST_RUN"
    case staticScratch = "STATIC_SCRATCH"
    case raceLarge = "RACE_LARGE"
    case afterRuns = "AFTER_RUNS"
    case bitFlips = "BIT_FLIPS"
    case reqLowBits = "REQ_LOW_BITS"
    case noLookup = "NO_LOOKUP"
    case smallBuffers = "SMALL_BUFFERS"
    case warpTruncFrac = "WARP_TRUNC_FRAC"
    case warpAxisRound = "WARP_AXIS_ROUND"
    case warpAcc16 = "WARP_ACC16"
    case warpScaleClamp = "WARP_SCALE_CLAMP"
    case warpTailChannels = "WARP_TAIL_CHANNELS"
    case warpIndex16 = "WARP_INDEX16"

    /// The warp's defects (WarpDefectBackendTests probes them together).
    static let warp: [DefectVariant] = [.warpTruncFrac, .warpAxisRound, .warpAcc16, .warpScaleClamp, .warpTailChannels, .warpIndex16]

    /// The table name defect_backend.c gives this variant.
    var backendName: String { "defect-" + rawValue.lowercased().replacingOccurrences(of: "_", with: "-") }
    var fileName: String { "libWai-\(backendName).so" }
}

extension CPluginBuilder {
    /// Compiles (once per test process) and copies the defect variants into `dir`.
    func installDefects(_ variants: [DefectVariant], into dir: String) throws {
        for v in variants {
            try FileManager.default.copyItem(atPath: try defectPlugin(v), toPath: dir + "/" + v.fileName)
        }
    }

    func defectPlugin(_ variant: DefectVariant) throws -> String {
        let dir = try makeDirectoryOnce("defects")
        let out = dir + "/" + variant.fileName
        if FileManager.default.fileExists(atPath: out) { return out }
        let tmp = out + ".tmp-\(UUID().uuidString.prefix(8))"
        try compile(source: packageRoot + "/Tests/CPlugins/defect_backend.c", output: tmp,
                    flags: ["-I", includeDir, "-DDEFECT_\(variant.rawValue)"])
        _ = rename(tmp, out)
        return out
    }

    /// One folder per test process for the compiled defects; the test classes remove it.
    static let defectRoot = TemporaryRoot("waihost-defects")

    func removeDefects() { Self.defectRoot.removeAll() }

    private func makeDirectoryOnce(_ name: String) throws -> String { try Self.defectRoot.rootPath() }
}
