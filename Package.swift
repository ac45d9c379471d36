// swift-tools-version:5.9
// WaiHost: the host library and CLI, the backend ABI, and the backends as plugins.
// Every dependency is a Debian system library (no Swift package can be fetched here).
import PackageDescription

let package = Package(
    name: "WaiHost",
    products: [
        .library(name: "WaiHost", targets: ["WaiHost"]),
        .library(name: "Relay", targets: ["Relay"]),
        .library(name: "Audit", targets: ["Audit"]),
        .executable(name: "waihost", targets: ["WaiHostCLI"]),
        // The host as a C library (docs/c-api.md): built as libWaiHostC.so, because the
        // product name "waihost" is the CLI's; scripts/install-capi.sh installs it as
        // libwaihost.so.1, the SONAME it carries.
        .library(name: "WaiHostC", type: .dynamic, targets: ["WaiHostC"]),
        // The process every backend plugin runs in, installed beside the library and the
        // programs that embed it (docs/probe.md §3); the host finds it without the CLI.
        .executable(name: "waihost-unit-worker", targets: ["UnitWorker"]),
        // Each backend is a shared object installed into plugins.d (docs/backend-abi.md §1).
        .library(name: "WaiCPUBackend", type: .dynamic, targets: ["CPUBackend"]),
        // For the tests only, never installed: the CPU backend over emulated AVX-512 and AMX
        // intrinsics (Tests/EmulatedCPUBackend), so those paths are checked on every CPU.
        .library(name: "WaiCPUBackendEmulated", type: .dynamic, targets: ["EmulatedCPUBackend"]),
        .library(name: "WaiVulkanBackend", type: .dynamic, targets: ["VulkanBackend"]),
        .library(name: "WaiOpenCLBackend", type: .dynamic, targets: ["OpenCLBackend"]),
    ],
    targets: [
        .target(name: "BackendABI", path: "Sources/BackendABI"),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium",
                       providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng16",
                       providers: [.apt(["libpng-dev"])]),
        // libmicrohttpd, libcurl, libsqlite3 and libpq are loaded on first use, not linked
        // (docs/architecture.md, "Libraries loaded on first use"): with the forty libraries
        // they pull in, linking them cost every `waihost` process about 6 ms before main.
        // Their headers come from the -dev packages (scripts/install-deps.sh).
        .target(name: "CLazyLibrary", path: "Sources/CLazyLibrary"),
        .target(name: "CMicroHTTPD", dependencies: ["CLazyLibrary"], path: "Sources/CMicroHTTPD"),
        .target(name: "CCurl", dependencies: ["CLazyLibrary"], path: "Sources/CCurl"),
        .target(name: "CSQLite", dependencies: ["CLazyLibrary"], path: "Sources/CSQLite"),
        .target(name: "CPostgres", dependencies: ["CLazyLibrary"], path: "Sources/CPostgres"),
        // Locks, clocks, hex and JSON coding: the one implementation every module uses.
        .target(name: "WaiSupport", path: "Sources/WaiSupport"),
        // SHA-256, Ed25519 and key files over OpenSSL (and libsodium's faster Ed25519 where it
        // gives OpenSSL's answer): one wrapper for the host and the relay.
        .target(name: "WaiCrypto", dependencies: ["COpenSSL", "CSodium", "WaiSupport"], path: "Sources/WaiCrypto"),
        // Socket pairs, SCM_RIGHTS, memfd and the worker's crash backtrace: kernel interfaces
        // with no Swift spelling (CMSG_* macros, variadic calls).
        .target(name: "WorkerIPC", path: "Sources/WorkerIPC"),
        // The probe cache's listing identity: libdrm's GPUs (dlopen'ed, as the runtimes do), the CPU affinity.
        .target(name: "MachineIdentity", path: "Sources/MachineIdentity", linkerSettings: [.linkedLibrary("dl")]),
        // The region engine's convolution and inverse GDN loops in the CPU's widest integer
        // vectors, chosen at run time (spot checks run them on every decode, docs/probe.md §7).
        .target(name: "RegionKernels", path: "Sources/RegionKernels",
                cSettings: [.unsafeFlags(["-O3"])], linkerSettings: [.linkedLibrary("m")]),
        // The library in layers, no cycle (docs/architecture.md, "Modules"): the graph, its
        // reference interpreter, the model container, pictures and the region engine; the
        // entropy coder and the envelope; the host (plugins, workers, probe, qualification,
        // spot checks, dispatch, configuration); the capabilities (the codecs). `WaiHost`
        // re-exports them all.
        // The op table (docs/integer-ops.md §4, the ABI's wai_op values): the host and the
        // backends' descriptor reader spell ops from it.
        .target(name: "WaiOps", path: "Sources/WaiOps"),
        // PNG files written with libpng's full API, whose errors longjmp: the write is C.
        .target(name: "PNGWriter", dependencies: ["CPNG"], path: "Sources/PNGWriter"),
        .target(name: "WaiCore", dependencies: ["WaiSupport", "WaiCrypto", "WaiOps", "CPNG", "PNGWriter", "RegionKernels"], path: "Sources/WaiCore"),
        // The lane-stream decoder's AVX-512 loop (docs/entropy-coding.md §8.4), chosen at run
        // time with RegionKernels' ISA detection; the Swift decoder stays the definition.
        .target(name: "EntropyKernels", path: "Sources/EntropyKernels", cSettings: [.unsafeFlags(["-O3"])]),
        .target(name: "WaiEntropy", dependencies: ["WaiCore", "EntropyKernels", "RegionKernels"], path: "Sources/WaiEntropy"),
        .target(name: "WaiRuntime", dependencies: ["WaiCore", "BackendABI", "WorkerIPC", "MachineIdentity"],
                path: "Sources/WaiRuntime"),
        .target(name: "WaiCapabilities", dependencies: ["WaiRuntime", "WaiEntropy"], path: "Sources/WaiCapabilities"),
        .target(name: "WaiHost", dependencies: ["WaiSupport", "WaiCrypto", "WaiCore", "WaiEntropy", "WaiRuntime", "WaiCapabilities"],
                path: "Sources/WaiHost"),
        .executableTarget(name: "UnitWorker", dependencies: ["WaiHost"], path: "Sources/UnitWorker"),
        // Benchmark of the isolation's cost per graph run (not a test): swift run -c release IsolationBench.
        .executableTarget(name: "IsolationBench", dependencies: ["WaiHost"], path: "Sources/IsolationBench"),
        .target(name: "Relay", dependencies: ["WaiSupport", "WaiCrypto", "CMicroHTTPD", "CCurl"], path: "Sources/Relay"),
        .target(name: "Audit", dependencies: ["Relay", "WaiSupport", "WaiCrypto", "CCurl", "CSQLite", "CPostgres"], path: "Sources/Audit"),
        // waihost.h (and its status names); WaiHostC exports the functions it declares with
        // @_cdecl, over the header's own types so the two cannot drift.
        .target(name: "WaiHostCAPI", path: "Sources/WaiHostCAPI"),
        .target(name: "WaiHostC", dependencies: ["WaiHost", "WaiHostCAPI", "WaiSupport"], path: "Sources/WaiHostC",
                // Programs record libwaihost.so.1 (the API major, waihost.h) as what they need.
                linkerSettings: [.unsafeFlags(["-Xlinker", "-soname=libwaihost.so.1"])]),
        // The CLI: its command table, parser (pure, unit-tested by CLIKitTests) and commands;
        // the executable is only main.swift. WaiHost does not depend on it.
        .target(name: "WaiHostCLIKit", dependencies: ["WaiHost", "WaiSupport", "BackendABI", "Relay", "Audit"], path: "Sources/WaiHostCLIKit"),
        .executableTarget(name: "WaiHostCLI", dependencies: ["WaiHostCLIKit"], path: "Sources/WaiHostCLI"),

        .target(name: "CPUKernels", path: "Plugins/CPUBackend/Kernels",
                cSettings: [.unsafeFlags(["-O3"])]),
        .target(name: "BackendDescriptor", dependencies: ["BackendABI", "WaiSupport", "WaiOps"], path: "Sources/BackendDescriptor"),
        .target(name: "CPUBackend", dependencies: ["BackendABI", "BackendDescriptor", "CPUKernels"],
                path: "Plugins/CPUBackend/Plugin"),

        // The Vulkan backend: libvulkan is dlopen'ed (VulkanRuntime), never linked, so the
        // plugin loads without a loader; its GLSL is compiled to SPIR-V at build time.
        .executableTarget(name: "ShaderCompiler", path: "Tools/ShaderCompiler"),
        .plugin(name: "ShaderPlugin", capability: .buildTool(), dependencies: ["ShaderCompiler"],
                path: "Tools/ShaderPlugin"),
        .target(name: "VulkanRuntime", path: "Plugins/VulkanBackend/Runtime",
                linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "VulkanBackend", dependencies: ["BackendABI", "BackendDescriptor", "VulkanRuntime"],
                path: "Plugins/VulkanBackend/Plugin", plugins: ["ShaderPlugin"]),

        // The OpenCL backend: the ICD loader (libOpenCL.so.1) is dlopen'ed (OpenCLRuntime),
        // never linked; its OpenCL C is built at graph_prepare and cached on disk.
        .target(name: "OpenCLRuntime", path: "Plugins/OpenCLBackend/Runtime",
                linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "OpenCLBackend", dependencies: ["BackendABI", "BackendDescriptor", "OpenCLRuntime"],
                path: "Plugins/OpenCLBackend/Plugin"),

        // What every test target shares: the subprocess runner (both pipes drained, a
        // deadline), temporary folders, the HTTP clients, paths to the built products.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"], path: "Tests/TestSupportTests"),
        // The lane decoder's AVX-512 loop on emulated intrinsics, for the tests on any CPU.
        .target(name: "EmulatedEntropyKernels", dependencies: ["EntropyKernels"], path: "Tests/EmulatedEntropyKernels"),
        // The region engine's AVX-512 convolution on emulated intrinsics, likewise.
        .target(name: "EmulatedRegionKernels", dependencies: ["RegionKernels"], path: "Tests/EmulatedRegionKernels"),
        // The CPU backend again, its kernels' AVX-512 and AMX intrinsics in portable C: the
        // kernel sources through wrappers, the plugin's Swift through symbolic links.
        .target(name: "EmulatedCPUKernels", path: "Tests/EmulatedCPUBackend/Kernels",
                cSettings: [.define("CPUK_EMULATED"), .unsafeFlags(["-O2"])]),
        .target(name: "EmulatedCPUBackend", dependencies: ["BackendABI", "BackendDescriptor", "EmulatedCPUKernels"],
                path: "Tests/EmulatedCPUBackend/Plugin", swiftSettings: [.define("WAI_EMULATED_KERNELS")]),
        .testTarget(name: "WaiHostTests", dependencies: ["WaiHost", "WaiCore", "WaiEntropy", "WaiRuntime", "WaiCapabilities",
                                                        "BackendABI", "BackendDescriptor", "TestSupport",
                                                        "EmulatedEntropyKernels", "EmulatedRegionKernels"],
                    path: "Tests/WaiHostTests"),
        .testTarget(name: "WaiSupportTests", dependencies: ["WaiSupport"], path: "Tests/WaiSupportTests"),
        .testTarget(name: "RelayTests", dependencies: ["Relay", "TestSupport"], path: "Tests/RelayTests"),
        .testTarget(name: "CLIKitTests", dependencies: ["WaiHostCLIKit", "TestSupport"], path: "Tests/CLIKitTests"),
        .testTarget(name: "AuditTests", dependencies: ["Audit", "TestSupport"], path: "Tests/AuditTests",
                    exclude: ["verify_bundle.py"]),
    ]
)
