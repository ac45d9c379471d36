#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import MachineIdentity

/// The cheap identity of everything a plugin's unit listing can depend on (docs/probe.md §5,
/// "Listing"): while it matches the one recorded with a cached listing, the listing is
/// reused and the plugin's worker is not started by the probe.
enum ListingIdentity {
    /// The environment variables that loaders, drivers, runtimes and the dynamic linker read
    /// (and WAI_*, the backends' own), by prefix, and HOME (the per-user manifest folders).
    /// The rest — the shell's PWD, SHLVL, PATH, terminal and session settings, a benchmark
    /// tool's own variables — varies from one invocation to the next and selects no device.
    static let listingVariablePrefixes = [
        "WAI_", "VK_", "VULKAN_", "MESA_", "LP_", "GALLIUM_", "RADV_", "ANV_", "HASVK_", "NVK_", "TU_", "AMD_",
        "ACO_", "RADEON_", "INTEL_", "IGC_", "NEO_", "NV_", "__GL", "__NV", "__VK", "__EGL", "EGL_", "DRI_",
        "LIBGL_", "OCL_", "OPENCL_", "POCL_", "CL_", "CUDA_", "ZE_", "SYCL_", "ONEAPI_", "HSA_", "HIP_", "ROC",
        "GPU_", "LLVM", "LD_", "XDG_", "OMP_", "GOMP_", "KMP_",
    ]

    static func listingVariable(_ name: String) -> Bool {
        name == "HOME" || listingVariablePrefixes.contains { name.hasPrefix($0) }
    }

    /// The lines every plugin shares: host and worker, kernel, CPU, environment, libdrm's
    /// GPUs, the Vulkan and OpenCL manifests with the drivers they name, and the folders the
    /// dynamic linker searches. Computed once per probe.
    static func machine(hashes: FileHashes, worker: String?, environment env: [String: String]) -> [String] {
        var lines = ["host \(WaiHostVersion.string)"]
        lines.append("worker \(worker ?? "-") " + (worker.flatMap(FileStat.of)?.line ?? "absent"))
        var u = utsname()
        uname(&u)
        func field<T>(_ v: T) -> String {
            withUnsafeBytes(of: v) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        lines.append("kernel \(field(u.sysname)) \(field(u.release)) \(field(u.version)) \(field(u.machine))")
        lines.append("cpu " + cpuIdentity())
        let kept = env.filter { listingVariable($0.key) }
        lines.append("environment " + SHA256.hex(Array(kept.keys.sorted().map { "\($0)=\(kept[$0]!)" }
            .joined(separator: "\0").utf8)))
        var drm = [CChar](repeating: 0, count: 16384)
        _ = waihost_drm_identity(&drm, drm.count)
        lines.append("drm " + String(decoding: drm.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(separator: "\n").joined(separator: "; "))
        let libraryDirs = librarySearchDirectories(env, machine: field(u.machine))
        for dir in libraryDirs { lines.append("library-dir \(dir) " + (FileStat.of(dir)?.line ?? "absent")) }
        for file in ["/etc/ld.so.cache", "/etc/ld.so.preload"] {
            lines.append("linker \(file) " + (FileStat.of(file)?.line ?? "absent"))
        }
        for entry in vulkanManifestPlaces(env) + openCLManifestPlaces(env) {
            lines += manifestLines(entry, hashes: hashes, libraryDirs: libraryDirs)
        }
        for lib in (env["OCL_ICD_FILENAMES"] ?? "").split(separator: ":").map(String.init) {
            lines.append(driverLine(lib, relativeTo: nil, hashes: hashes, libraryDirs: libraryDirs))
        }
        return lines
    }

    /// The key of one plugin's listing: its content hash, the machine lines, and the files
    /// its worker had mapped after listing (`mapped`, from `mappedLines`).
    static func key(pluginSHA256: String, machine: [String], mapped: [String]) -> String {
        SHA256.hex(Array((["plugin-sha256 " + pluginSHA256] + machine + mapped).joined(separator: "\n").utf8))
    }

    // MARK: - the files a worker mapped

    /// Every file the process has mapped (the plugin, its libraries, the loaders and drivers
    /// it loaded), with the inode the kernel mapped; nil when one of them was deleted or
    /// replaced since it was mapped (the listing may be of the old file: not cached).
    static func mappedFiles(pid: pid_t) -> [(path: String, inode: UInt64)]? {
        guard let text = SmallFile.text("/proc/\(pid)/maps", limit: 16 << 20) else { return nil }
        var seen = Set<String>()
        var files: [(path: String, inode: UInt64)] = []
        for line in text.split(separator: "\n") {
            // address perms offset dev inode path — the path may hold spaces.
            let parts = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard parts.count == 6, let inode = UInt64(parts[4]), inode != 0 else { continue }
            let path = trimmed(parts[5])
            guard path.hasPrefix("/") else { continue }
            // Shared memory (the tensor arenas) and device memory are not files of code.
            if path.hasPrefix("/memfd:") || path.hasPrefix("/SYSV") || path.hasPrefix("/dev/") { continue }
            if path.hasSuffix(" (deleted)") { return nil }
            if seen.insert(path).inserted { files.append((path, inode)) }
        }
        return files
    }

    /// One line per file as it is now; nil when one is gone or, given its mapped inode, is
    /// no longer the file that was mapped.
    static func mappedLines(_ files: [(path: String, inode: UInt64?)]) -> [String]? {
        var lines: [String] = []
        lines.reserveCapacity(files.count)
        for f in files {
            guard let st = FileStat.of(f.path) else { return nil }
            if let inode = f.inode, inode != st.inode { return nil }
            lines.append("mapped \(f.path) \(st.line)")
        }
        return lines
    }

    // MARK: - CPU

    /// The CPU as cpuinfo describes it (model, stepping, microcode, flags, how many) and the
    /// CPUs this process may run on: what a CPU backend's units (one per instruction-set
    /// path, "N threads") are made of.
    static func cpuIdentity() -> String {
        let keys: Set<Substring> = ["vendor_id", "cpu family", "model", "model name", "stepping", "microcode",
                                    "flags", "siblings", "cpu cores", "Features", "CPU implementer", "CPU part"]
        var distinct = Set<Substring>()
        var processors = 0
        for line in (SmallFile.text("/proc/cpuinfo", limit: 32 << 20) ?? "").split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = trimmed(line[..<colon])
            if key == "processor" { processors += 1 }
            if keys.contains(Substring(key)) { distinct.insert(line) }
        }
        var buffer = [CChar](repeating: 0, count: 65536)
        _ = waihost_cpu_affinity(&buffer, buffer.count)
        let affinity = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let online = SmallFile.text("/sys/devices/system/cpu/online").map { trimmed(Substring($0)) } ?? "-"
        return "processors \(processors) online \(online) affinity \(affinity) "
            + SHA256.hex(Array(distinct.sorted().joined(separator: "\n").utf8))
    }

    // MARK: - manifests and drivers

    /// Where the Vulkan loader looks for driver and layer manifests on Linux (its
    /// LoaderInterfaceArchitecture: the XDG folders, SYSCONFDIR, the override variables).
    static func vulkanManifestPlaces(_ env: [String: String]) -> [String] {
        let home = env["HOME"] ?? ""
        func list(_ name: String, _ fallback: String) -> [String] {
            (env[name].flatMap { $0.isEmpty ? nil : $0 } ?? fallback).split(separator: ":").map(String.init)
        }
        let roots = list("XDG_CONFIG_HOME", home + "/.config") + list("XDG_CONFIG_DIRS", "/etc/xdg")
            + ["/usr/local/etc", "/etc"] + list("XDG_DATA_HOME", home + "/.local/share")
            + list("XDG_DATA_DIRS", "/usr/local/share:/usr/share")
        var places: [String] = []
        for sub in ["icd.d", "implicit_layer.d", "explicit_layer.d"] {
            places += roots.map { $0 + "/vulkan/" + sub }
        }
        for name in ["VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VK_ADD_DRIVER_FILES", "VK_LAYER_PATH", "VK_ADD_LAYER_PATH"] {
            places += (env[name] ?? "").split(separator: ":").map(String.init)
        }
        return places
    }

    /// Where the OpenCL ICD loader (ocl-icd, Khronos) finds its vendors.
    static func openCLManifestPlaces(_ env: [String: String]) -> [String] {
        var places = ["/etc/OpenCL/vendors"]
        if let v = env["OCL_ICD_VENDORS"], !v.isEmpty { places.append(v) }
        return places
    }

    /// A folder: its own stat (an added or removed manifest) and every manifest in it; a file:
    /// its content hash and the driver library it names.
    static func manifestLines(_ place: String, hashes: FileHashes, libraryDirs: [String]) -> [String] {
        if let names = SmallFile.names(in: place) {
            var lines = ["manifest-dir \(place) " + (FileStat.of(place)?.line ?? "absent")]
            for name in names where name.hasSuffix(".json") || name.hasSuffix(".icd") {
                lines += manifestFileLines(place + "/" + name, hashes: hashes, libraryDirs: libraryDirs)
            }
            return lines
        }
        return manifestFileLines(place, hashes: hashes, libraryDirs: libraryDirs)
    }

    private struct VulkanManifest: Decodable {
        struct Library: Decodable { var library_path: String? }
        var ICD: Library?
        var layer: Library?
        var layers: [Library]?
        var libraries: [String] { ([ICD, layer] + (layers ?? [])).compactMap { $0?.library_path } }
    }

    static func manifestFileLines(_ path: String, hashes: FileHashes, libraryDirs: [String]) -> [String] {
        guard let bytes = SmallFile.read(path) else { return ["manifest \(path) absent"] }
        var lines = ["manifest \(path) sha256 " + SHA256.hex(bytes)]
        let dir = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let libraries: [String]
        if path.hasSuffix(".icd") {
            // An OpenCL vendor file is the library's name or path on its first line.
            libraries = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).prefix(1)
                .map { trimmed($0) }.filter { !$0.isEmpty }
        } else {
            // A manifest that does not parse still counts by its bytes above.
            libraries = (try? JSONDecoder().decode(VulkanManifest.self, from: Data(bytes)))?.libraries ?? []
        }
        for lib in libraries {
            lines.append(driverLine(lib, relativeTo: dir, hashes: hashes, libraryDirs: libraryDirs))
        }
        return lines
    }

    /// The driver library a manifest names, found as its loader would (a path relative to
    /// the manifest, or a bare name in the linker's folders), by content hash.
    static func driverLine(_ name: String, relativeTo dir: String?, hashes: FileHashes, libraryDirs: [String]) -> String {
        let candidates: [String]
        if name.hasPrefix("/") {
            candidates = [name]
        } else if name.contains("/") {
            candidates = dir.map { [$0 + "/" + name] } ?? [name]
        } else {
            candidates = libraryDirs.map { $0 + "/" + name }
        }
        for c in candidates where FileStat.of(c) != nil {
            guard let sha = try? hashes.sha256(c) else { return "driver \(name) at \(c) unreadable" }
            return "driver \(name) at \(c) sha256 \(sha)"
        }
        return "driver \(name) absent"
    }

    /// LD_LIBRARY_PATH, then the usual system folders: where a bare library name resolves.
    /// Their stats go into the key, so a library dropped into one of them is noticed.
    static func librarySearchDirectories(_ env: [String: String], machine: String) -> [String] {
        let triple = machine + "-linux-gnu"
        var dirs = (env["LD_LIBRARY_PATH"] ?? "").split(separator: ":").map(String.init)
        dirs += ["/lib/" + triple, "/usr/lib/" + triple, "/lib64", "/usr/lib64", "/lib", "/usr/lib",
                 "/usr/local/lib", "/usr/local/lib/" + triple]
        return dirs
    }

    static func trimmed(_ s: Substring) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(s.drop(while: blank).reversed().drop(while: blank).reversed())
    }
}
