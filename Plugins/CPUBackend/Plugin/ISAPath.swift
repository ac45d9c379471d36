import BackendDescriptor
#if WAI_EMULATED_KERNELS
import EmulatedCPUKernels   // Tests/EmulatedCPUBackend: these sources over emulated AVX-512 and AMX
#else
import CPUKernels
#endif

/// One instruction-set path of the kernels. Each path the CPU runs is its own unit, so the
/// host probes every path for exactness and ranks them by speed instead of trusting that
/// all paths are as exact as one tested (README.md, "Units").
enum ISAPath: CaseIterable {
    // Fastest first: the unit order when every path is offered.
    case amx, avx512, avx2, scalar

    var kernel: cpuk_isa {
        switch self {
        case .amx: return CPUK_ISA_AMX
        case .avx512: return CPUK_ISA_AVX512
        case .avx2: return CPUK_ISA_AVX2
        case .scalar: return CPUK_ISA_SCALAR
        }
    }

    /// The name in the unit's driver string ("amx-int8", "avx512-vnni", "avx2", "scalar").
    var driverName: String { String(cString: cpuk_isa_name(kernel)) }

    /// CPUID + XGETBV (and for AMX the Linux tile permission) say this process can run it.
    var isSupported: Bool { cpuk_isa_supported(kernel) != 0 }

    /// A WAI_CPU_ISA name: the short one ("avx512") or the driver string's ("avx512-vnni").
    init?(name: String) {
        var isa = CPUK_ISA_SCALAR
        guard cpuk_isa_parse(name, &isa) != 0, let path = Self.allCases.first(where: { $0.kernel == isa }) else { return nil }
        self = path
    }

    /// The units a backend offers for a WAI_CPU_ISA value: unset, empty or `auto` — every
    /// supported path, fastest first; otherwise a comma-separated list of names, offered in
    /// that order, each of which must be supported.
    static func offered(by setting: String?) throws -> [ISAPath] {
        guard let setting, !setting.isEmpty, setting != "auto" else { return allCases.filter(\.isSupported) }
        var paths: [ISAPath] = []
        for item in setting.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard let path = ISAPath(name: item) else {
                throw BackendFailure.invalid("open: WAI_CPU_ISA=\(setting): \"\(item)\" is not one of scalar, avx2, avx512, amx, auto")
            }
            guard !paths.contains(path) else {
                throw BackendFailure.invalid("open: WAI_CPU_ISA=\(setting) names \(item) twice")
            }
            guard path.isSupported else {
                throw BackendFailure.unsupported("open: WAI_CPU_ISA=\(setting) asks for \(path.driverName), which this CPU (or its OS) does not support")
            }
            paths.append(path)
        }
        return paths
    }
}
