import BackendABI
import Foundation
import TestSupport
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// docs/backend-abi.md §2.3: struct sizes survive the first minor. A header with one member
/// appended to every struct (a stand-in 1.1) builds a C host-side loader and the plain-C
/// backend; each is paired with 1.0 peers — the 1.0 C loader, the 1.0 plain-C backend, the
/// Swift CPU backend and this host — and every pair works, with nothing read or written past
/// the smaller side's struct_size.
final class ABIStructSizeTests: XCTestCase {
    private let builder = CPluginBuilder.shared

    override class func tearDown() {
        CPluginBuilder.shared.removeAll()
        super.tearDown()
    }

    static let structs = ["wai_unit_info", "wai_tensor_desc", "wai_node_desc", "wai_graph_desc", "wai_tensor", "wai_backend_iface"]
    static let future = "wai_future"

    /// The 1.0 header with `uint64_t wai_future;` appended to every struct, its
    /// no-tail-padding assertions naming the new last member, and minor 1.
    func writeNextMinorHeader() throws -> String {
        var text = try String(contentsOfFile: builder.includeDir + "/wai_backend.h", encoding: .utf8)
        for name in Self.structs {
            let close = "} \(name);"
            XCTAssertTrue(text.contains(close), "the header defines \(name)")
            text = text.replacingOccurrences(of: close, with: "    uint64_t \(Self.future);   /* appended in 1.1 */\n\(close)")
            let lines = text.components(separatedBy: "\n").map { line -> String in
                guard line.hasPrefix("WAI_STATIC_ASSERT(sizeof(\(name)) == WAI_STRUCT_SIZE(\(name), ") else { return line }
                return "WAI_STATIC_ASSERT(sizeof(\(name)) == WAI_STRUCT_SIZE(\(name), \(Self.future)), \"\(name) has tail padding\");"
            }
            text = lines.joined(separator: "\n")
        }
        // The next minor after the real header's (whose own additions, like 1.1's warp,
        // appended no struct member).
        let minor = "#define WAI_ABI_MINOR \(WAI_ABI_MINOR)u"
        XCTAssertTrue(text.contains(minor))
        text = text.replacingOccurrences(of: minor, with: "#define WAI_ABI_MINOR \(WAI_ABI_MINOR + 1)u")
        let dir = try builder.makeDirectory("abi-1.1")
        try text.write(toFile: dir + "/wai_backend.h", atomically: true, encoding: .utf8)
        return dir
    }

    func buildLoader(include: String, next: Bool, into dir: String) throws -> String {
        let cc = try CPluginBuilder.tool("cc", why: "the struct-size test builds a C loader")
        let out = dir + (next ? "/loader-1.1" : "/loader-1.0")
        let args = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I", include]
            + (next ? ["-DWAI_FUTURE_MEMBER=\(Self.future)"] : [])
            + ["-o", out, builder.packageRoot + "/Tests/CPlugins/iso_abi_host.c", "-ldl"]
        let r = try Subprocess(cc, args).run()
        XCTAssertEqual(r.status, 0, r.stderrText)
        return out
    }

    func load(_ loader: String, _ plugin: String) throws -> String {
        let r = try Subprocess(loader, [plugin]).run()
        XCTAssertEqual(r.status, 0, "\(loader) \(plugin): \(r.stdoutText)\(r.stderrText)")
        XCTAssertTrue(r.stdoutText.contains("run: exact"), r.stdoutText)
        return r.stdoutText
    }

    func testEveryPairOfAOneZeroAndANextMinorPeerWorks() throws {
        let next = try writeNextMinorHeader()
        let dir = try builder.makeDirectory("abi-pairs")
        let loader10 = try buildLoader(include: builder.includeDir, next: false, into: dir)
        let loader11 = try buildLoader(include: next, next: true, into: dir)
        let backend10 = try builder.plugin(.good)
        let backend11 = dir + "/libWai-plainc-1.1.so"
        try builder.compile(source: builder.source, output: backend11,
                            flags: ["-I", next, "-DWAI_FUTURE_MEMBER=\(Self.future)", "-Wl,-z,defs"])
        let cpu = try HostTestSupport.cpuPlugin()

        // A newer host with 1.0 backends: their 88-byte table is enough and its appended
        // member is not read; the unit_info member they do not know stays as initialised.
        for plugin in [backend10, cpu] {
            let out = try load(loader11, plugin)
            XCTAssertTrue(out.contains("table struct_size: 88") && out.contains("table future: absent"), out)
            XCTAssertTrue(out.contains("unit_info future: \(0xABAB)"), out)
        }
        // A newer backend with the 1.0 loader: nothing past the 1.0 structs is read
        // (guard bytes follow them) or written.
        let old = try load(loader10, backend11)
        XCTAssertTrue(old.contains("table struct_size: \(MemoryLayout<wai_backend_iface>.size + 8)"), old)
        // Two 1.1 peers see each other's appended members.
        let both = try load(loader11, backend11)
        XCTAssertTrue(both.contains("table future: present") && both.contains("unit_info future: 1"), both)

        // This host (1.0) loads the newer backend and computes exactly on it.
        let plugin = try BackendPlugin.load(path: backend11)
        XCTAssertEqual(plugin.abiMinor, WAI_ABI_MINOR + 1)
        XCTAssertEqual(try plugin.units().first?.device, "plain C test unit")
        let (graph, inputs) = try HostTestSupport.smallGraph()
        XCTAssertEqual(try InProcessUnit(plugin: plugin, unit: 0).prepare(graph).run(inputs),
                       try ReferenceInterpreter.run(graph, inputs: inputs))
    }

    /// The frozen sizes are the 1.0 sizes of docs/backend-abi.md §2.3, whatever sizeof says.
    func testFrozenSizesAreTheOneZeroSizes() {
        XCTAssertEqual(Int(WAI_BACKEND_IFACE_SIZE_1_0), 88)
        XCTAssertEqual(Int(WAI_UNIT_INFO_SIZE_1_0), 272)
        XCTAssertEqual(Int(WAI_TENSOR_DESC_SIZE_1_0), 32)
        XCTAssertEqual(Int(WAI_NODE_DESC_SIZE_1_0), 136)
        XCTAssertEqual(Int(WAI_GRAPH_DESC_SIZE_1_0), 72)
        XCTAssertEqual(Int(WAI_TENSOR_SIZE_1_0), 32)
    }

    /// wai_status_name is static inline: a backend that calls it links with -z defs.
    func testABackendUsingTheStatusNamesLinksWithZDefs() throws {
        let dir = try builder.makeDirectory("zdefs")
        let source = dir + "/names.c"
        try """
            #include "wai_backend.h"
            __attribute__((visibility("default"))) const char *names_probe(void);
            const char *names_probe(void) { return wai_status_name(WAI_ERR_OUT_OF_MEMORY); }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        try builder.compile(source: source, output: dir + "/libnames.so", flags: ["-I", builder.includeDir, "-Wl,-z,defs"])
    }
}
