// swift-tools-version:5.9
// WaiHost: the host library and CLI, the backend ABI, and the backends as plugins.
// Every dependency is a Debian system library (no Swift package can be fetched here).
import PackageDescription

let package = Package(
    name: "WaiHost",
    products: [
        .library(name: "WaiHost", targets: ["WaiHost"]),
        .executable(name: "waihost", targets: ["WaiHostCLI"]),
        // Each backend is a shared object installed into plugins.d (docs/backend-abi.md §1).
        .library(name: "WaiCPUBackend", type: .dynamic, targets: ["CPUBackend"]),
    ],
    targets: [
        .target(name: "BackendABI", path: "Sources/BackendABI"),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng16",
                       providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CVulkan", path: "Sources/CVulkan", pkgConfig: "vulkan",
                       providers: [.apt(["libvulkan-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "WaiHost", dependencies: ["BackendABI", "COpenSSL", "CPNG"], path: "Sources/WaiHost"),
        .executableTarget(name: "WaiHostCLI", dependencies: ["WaiHost"], path: "Sources/WaiHostCLI"),

        .target(name: "CPUKernels", path: "Plugins/CPUBackend/Kernels",
                cSettings: [.unsafeFlags(["-O3"])]),
        .target(name: "CPUBackend", dependencies: ["BackendABI", "CPUKernels"],
                path: "Plugins/CPUBackend/Plugin"),

        .testTarget(name: "WaiHostTests", dependencies: ["WaiHost", "BackendABI"],
                    path: "Tests/WaiHostTests"),
    ]
)
