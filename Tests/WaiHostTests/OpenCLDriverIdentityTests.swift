import Foundation
import TestSupport
import XCTest

/// The OpenCL units' driver identity (Plugins/OpenCLBackend/Runtime/identity.c): platform,
/// device version, driver version and PCI identity within the ABI's 127 characters. Pure C,
/// compiled alone, so every cut is checked without the drivers that would produce it.
final class OpenCLDriverIdentityTests: XCTestCase {
    private var runtimeDir: String { CPluginBuilder.shared.packageRoot + "/Plugins/OpenCLBackend/Runtime" }

    private static let driver = #"""
    #include <stdio.h>
    #include <string.h>
    #include "oclrt.h"
    static void show(const char *label, const char *p, const char *pv, const char *dv, const char *drv, const char *pci) {
        char out[128];
        oclrt_format_driver(out, sizeof out, p, pv, dv, drv, pci);
        printf("%s %zu [%s]\n", label, strlen(out), out);
    }
    int main(void) {
        show("pocl", "Portable Computing Language",
             "OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts, RELOC, SPIR, LLVM 15.0.6, SLEEF, DISTRO, POCL_DEBUG",
             "OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-skylake-avx512", "3.1+debian", "");
        show("nvidia", "NVIDIA CUDA", "OpenCL 3.0 CUDA 12.4.131", "OpenCL 3.0 CUDA", "550.54.15",
             " pci 10de:2335 (0000:3b:00.0) /dev/dri/renderD128");
        show("bare", "P", "", "OpenCL 1.2", "1", "");
        return 0;
    }
    """#

    func testDriverStringKeepsVersionsAndPCIWhole() throws {
        let tmp = try TempDir("waihost-ocl-identity")
        let dir = tmp.path
        try Self.driver.write(toFile: dir + "/driver.c", atomically: true, encoding: .utf8)
        let cc = try CPluginBuilder.tool("cc", why: "the identity test compiles identity.c with it")
        let args = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-I", runtimeDir + "/include", "-o", dir + "/driver",
                    dir + "/driver.c", runtimeDir + "/identity.c"]
        let built = try Subprocess(cc, args).run()
        XCTAssertEqual(built.status, 0, built.stderrText)
        guard built.status == 0 else { return }
        let r = try Subprocess(dir + "/driver", []).run()
        XCTAssertEqual(r.status, 0, r.stderrText)
        // PoCL: the platform's free text is cut (here to "OpenCL", its trailing blank dropped);
        // the device version and the driver version stay whole.
        let pocl = "Portable Computing Language OpenCL"
            + "; device OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-skylake-avx512; driver 3.1+debian"
        let nvidia = "NVIDIA CUDA OpenCL 3.0 CUDA 12.4.131; device OpenCL 3.0 CUDA; driver 550.54.15"
            + " pci 10de:2335 (0000:3b:00.0) /dev/dri/renderD128"
        XCTAssertEqual(r.stdoutText.split(separator: "\n").map(String.init), [
            "pocl \(pocl.utf8.count) [\(pocl)]",
            "nvidia \(nvidia.utf8.count) [\(nvidia)]",
            "bare 30 [P; device OpenCL 1.2; driver 1]",
        ])
    }
}
