import Foundation
import TestSupport
import XCTest

/// The Vulkan backend's PCI identity (Plugins/VulkanBackend/Runtime/pci_identity.c): libdrm's
/// devices matched to a Vulkan device by PCI address and the unit's driver string. This
/// machine kind has no /dev/dri, so the C is compiled alone with fabricated libdrm devices.
final class VulkanPCIIdentityTests: XCTestCase {
    private var runtimeDir: String { CPluginBuilder.shared.packageRoot + "/Plugins/VulkanBackend/Runtime" }

    private func cc(_ args: [String]) throws -> SubprocessResult {
        let cc = try CPluginBuilder.tool("cc", why: "the PCI identity test compiles pci_identity.c with it")
        let all = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-I", runtimeDir] + args
        let r = try Subprocess(cc, all).run()
        if r.status != 0 { XCTFail("\(cc) \(all.joined(separator: " ")) failed (\(r.status)):\n\(r.stderrText)") }
        return r
    }

    func testMatchingAndDriverString() throws {
        let tmp = try TempDir("waihost-pci")
        let dir = tmp.path
        try Self.driver.write(toFile: dir + "/driver.c", atomically: true, encoding: .utf8)
        guard try cc(["-o", dir + "/driver", dir + "/driver.c", runtimeDir + "/pci_identity.c"]).status == 0 else { return }
        let r = try Subprocess(dir + "/driver", []).run()
        XCTAssertEqual(r.status, 0, r.stderrText)
        // 127 characters: "radv " (5), then what is left of INFO (31), then the 42-character
        // version part and the 49-character PCI part, both whole.
        let long = "radv " + String(repeating: "i", count: 31)
            + "; driver version 0x5c02001; Vulkan 1.3.255 pci 1002:73bf (0000:0a:00.0) /dev/dri/renderD129"
        let expected = [
            "nodes 2",
            "node 0000:3b:00.0 10de:2335 /dev/dri/renderD128",
            "node 0001:03:00.1 8086:56a0 -",
            "match 1 [ pci 10de:2335 (0000:3b:00.0) /dev/dri/renderD128]",
            "nonode 1 [ pci 8086:56a0 (0001:03:00.1)]",
            "vendor 0 []",
            "address 0 []",
            "function 0 []",
            "small 0 []",
            "none 0 []",
            "plain [NVIDIA 535.104.05; driver version 0x85e1a140; Vulkan 1.3.242]",
            "pci [NVIDIA 535.104.05; driver version 0x85e1a140; Vulkan 1.3.242 pci 10de:2335 (0000:3b:00.0) /dev/dri/renderD128]",
            "old [vendor 0x10de device 0x2335; driver version 0x1; Vulkan 1.0.0]",
            "long 127 [\(long)]",
        ]
        XCTAssertEqual(r.stdoutText.split(separator: "\n").map(String.init), expected)
    }

    /// pci_identity.h mirrors libdrm's drmDevice because libdrm is dlopen'ed; a mirror that
    /// drifted from xf86drm.h would read the wrong fields.
    func testDRMMirrorMatchesLibdrmHeader() throws {
        let header = "/usr/include/xf86drm.h"
        guard FileManager.default.fileExists(atPath: header) else {
            return XCTFail("\(header) missing: install libdrm-dev (scripts/install-deps.sh does)")
        }
        let tmp = try TempDir("waihost-pci")
        let dir = tmp.path
        try Self.layout.write(toFile: dir + "/layout.c", atomically: true, encoding: .utf8)
        _ = try cc(["-I", "/usr/include/libdrm", "-fsyntax-only", dir + "/layout.c"])
    }

    private static let driver = #"""
    #include <stdio.h>
    #include <string.h>
    #include "pci_identity.h"

    static void suffix(const char *label, const vkrt_pci_node *nodes, size_t n, uint32_t domain, uint32_t bus,
                       uint32_t dev, uint32_t func, uint32_t vendor, size_t cap) {
        char out[96];
        int ok = vkrt_pci_suffix(nodes, n, domain, bus, dev, func, vendor, out, cap);
        printf("%s %d [%s]\n", label, ok, out);
    }

    int main(void) {
        char *nodes_a[3] = { "/dev/dri/card0", NULL, "/dev/dri/renderD128" };
        char *nodes_c[3] = { "/dev/dri/card1", NULL, "/dev/dri/renderD130" };
        vkrt_drm_pci_bus bus_a = { 0x0000, 0x3b, 0x00, 0x0 }, bus_c = { 0x0001, 0x03, 0x00, 0x1 };
        vkrt_drm_pci_device dev_a = { 0x10de, 0x2335, 0, 0, 0 }, dev_c = { 0x8086, 0x56a0, 0, 0, 0 };
        vkrt_drm_device a = { nodes_a, (1 << 0) | (1 << 2), 0, { .pci = &bus_a }, { .pci = &dev_a } };
        vkrt_drm_device platform = { nodes_a, 1 << 2, 2, { .other = NULL }, { .other = NULL } };
        /* Render node path present but not flagged available: not reported. */
        vkrt_drm_device c = { nodes_c, 1 << 0, 0, { .pci = &bus_c }, { .pci = &dev_c } };
        vkrt_drm_device *devices[3] = { &a, &platform, &c };
        vkrt_pci_node nodes[4];
        size_t n = vkrt_pci_nodes_from_drm(devices, 3, nodes, 4);
        printf("nodes %zu\n", n);
        for (size_t i = 0; i < n; i++)
            printf("node %04x:%02x:%02x.%x %04x:%04x %s\n", nodes[i].domain, nodes[i].bus, nodes[i].dev, nodes[i].func,
                   nodes[i].vendor, nodes[i].device, nodes[i].render[0] ? nodes[i].render : "-");

        suffix("match", nodes, n, 0, 0x3b, 0, 0, 0x10de, 96);
        suffix("nonode", nodes, n, 1, 3, 0, 1, 0x8086, 96);
        suffix("vendor", nodes, n, 0, 0x3b, 0, 0, 0x1002, 96);
        suffix("address", nodes, n, 0, 0x3c, 0, 0, 0x10de, 96);
        suffix("function", nodes, n, 1, 3, 0, 0, 0x8086, 96);
        suffix("small", nodes, n, 0, 0x3b, 0, 0, 0x10de, 20);
        suffix("none", nodes, 0, 0, 0x3b, 0, 0, 0x10de, 96);

        char driver[128], pci[96];
        vkrt_format_driver(driver, sizeof driver, "NVIDIA", "535.104.05", 0x85e1a140, "1.3.242", "");
        printf("plain [%s]\n", driver);
        vkrt_pci_suffix(nodes, n, 0, 0x3b, 0, 0, 0x10de, pci, sizeof pci);
        vkrt_format_driver(driver, sizeof driver, "NVIDIA", "535.104.05", 0x85e1a140, "1.3.242", pci);
        printf("pci [%s]\n", driver);
        vkrt_format_driver(driver, sizeof driver, "vendor 0x10de device 0x2335", "", 0x1, "1.0.0", "");
        printf("old [%s]\n", driver);
        char info[200];
        memset(info, 'i', sizeof info - 1);
        info[sizeof info - 1] = 0;
        vkrt_drm_pci_bus bus_r = { 0, 0x0a, 0, 0 };
        vkrt_drm_pci_device dev_r = { 0x1002, 0x73bf, 0, 0, 0 };
        char *nodes_r[3] = { NULL, NULL, "/dev/dri/renderD129" };
        vkrt_drm_device r = { nodes_r, 1 << 2, 0, { .pci = &bus_r }, { .pci = &dev_r } };
        vkrt_drm_device *rs[1] = { &r };
        vkrt_pci_node rnode;
        vkrt_pci_nodes_from_drm(rs, 1, &rnode, 1);
        vkrt_pci_suffix(&rnode, 1, 0, 0x0a, 0, 0, 0x1002, pci, sizeof pci);
        vkrt_format_driver(driver, sizeof driver, "radv", info, 0x5c02001, "1.3.255", pci);
        printf("long %zu [%s]\n", strlen(driver), driver);
        return 0;
    }
    """#

    private static let layout = #"""
    #include <stddef.h>
    #include <xf86drm.h>
    #include "pci_identity.h"
    #define SAME(a, b, f) _Static_assert(offsetof(a, f) == offsetof(b, f), #a "." #f)
    _Static_assert(sizeof(vkrt_drm_device) == sizeof(drmDevice), "drmDevice size");
    SAME(vkrt_drm_device, drmDevice, nodes);
    SAME(vkrt_drm_device, drmDevice, available_nodes);
    SAME(vkrt_drm_device, drmDevice, bustype);
    SAME(vkrt_drm_device, drmDevice, businfo);
    SAME(vkrt_drm_device, drmDevice, deviceinfo);
    _Static_assert(sizeof(vkrt_drm_pci_bus) == sizeof(drmPciBusInfo), "drmPciBusInfo size");
    SAME(vkrt_drm_pci_bus, drmPciBusInfo, domain);
    SAME(vkrt_drm_pci_bus, drmPciBusInfo, bus);
    SAME(vkrt_drm_pci_bus, drmPciBusInfo, dev);
    SAME(vkrt_drm_pci_bus, drmPciBusInfo, func);
    _Static_assert(sizeof(vkrt_drm_pci_device) == sizeof(drmPciDeviceInfo), "drmPciDeviceInfo size");
    SAME(vkrt_drm_pci_device, drmPciDeviceInfo, vendor_id);
    SAME(vkrt_drm_pci_device, drmPciDeviceInfo, device_id);
    _Static_assert(VKRT_DRM_NODE_RENDER == DRM_NODE_RENDER, "DRM_NODE_RENDER");
    _Static_assert(VKRT_DRM_NODE_MAX == DRM_NODE_MAX, "DRM_NODE_MAX");
    _Static_assert(VKRT_DRM_BUS_PCI == DRM_BUS_PCI, "DRM_BUS_PCI");
    typedef int (*get_devices2)(uint32_t, drmDevicePtr[], int);
    static get_devices2 const check_signature = drmGetDevices2;
    int use_check(void) { return check_signature != 0; }
    """#
}
