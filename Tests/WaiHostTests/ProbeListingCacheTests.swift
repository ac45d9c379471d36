import Foundation
import XCTest
import WaiHost
@testable import WaiCore
@testable import WaiEntropy
@testable import WaiRuntime
@testable import WaiCapabilities

/// The cached listing of a warm probe (docs/probe.md §5, "Listing"): reused while the cheap
/// identity holds, listed again by the plugin's worker as soon as a driver manifest, a
/// driver file the manifest names or the plugin itself changes. Whether it was listed again
/// is read from the report (`listing_cached`) and the cache file, never from timing.
final class ProbeListingCacheTests: XCTestCase {
    private var saved: [String: String?] = [:]

    private func set(_ name: String, _ value: String) {
        if saved[name] == nil { saved[name] = ProcessInfo.processInfo.environment[name] }
        setenv(name, value, 1)
    }

    override func tearDown() {
        for (name, value) in saved {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        saved = [:]
    }

    func testListingIsReusedOnlyWhileManifestsDriversAndPluginAreUnchanged() throws {
        let builder = CPluginBuilder.shared
        let plugins = try builder.makeDirectory("listing-plugins")
        let cache = try builder.makeDirectory("listing-cache")
        let drivers = try builder.makeDirectory("listing-drivers")
        // A plugin rejected within its first graphs keeps each probe short; a rejection is
        // cached like an acceptance, and the listing does not depend on the verdict.
        try builder.install([.shiftZeroFill], into: plugins)
        let plugin = plugins + "/" + CPluginVariant.shiftZeroFill.fileName

        // A Vulkan driver manifest and an OpenCL vendor file of the test's own, each naming a
        // driver file, found where the loaders look (VK_ADD_DRIVER_FILES, OCL_ICD_VENDORS).
        let vkDriver = drivers + "/libtest_vulkan_driver.so"
        let vkManifest = drivers + "/test_icd.json"
        let vendors = drivers + "/vendors"
        try FileManager.default.createDirectory(atPath: vendors, withIntermediateDirectories: true)
        let clDriver = drivers + "/libtest_opencl_driver.so"
        try write(vkDriver, "vulkan driver, build 1")
        try write(clDriver, "opencl driver, build 1")
        func writeManifest(api: String) throws {
            try write(vkManifest, #"{"file_format_version": "1.0.0", "ICD": {"library_path": "\#(vkDriver)", "api_version": "\#(api)"}}"#)
        }
        try writeManifest(api: "1.3.0")
        try write(vendors + "/test.icd", clDriver + "\n")
        set("VK_ADD_DRIVER_FILES", vkManifest)
        set("OCL_ICD_VENDORS", vendors)

        func probe() throws -> ProbeResult {
            try BackendHost(configuration: HostTestSupport.configuration(plugins: [plugins], cache: cache, timeout: 300)).probe()
        }
        func listedFromCache(_ line: UInt = #line) throws -> Bool {
            let r = try probe()
            XCTAssertEqual(r.units.count, 1, line: line)
            XCTAssertEqual(r.units.first?.state, .rejected, line: line)
            return try XCTUnwrap(r.units.first?.listingCached, line: line)
        }
        func cachedListing() throws -> ProbeCache.Listing {
            try XCTUnwrap(ProbeCache(directory: cache).loadAll(warn: { XCTFail($0) }).listings[plugin])
        }

        XCTAssertFalse(try listedFromCache(), "cold: listed by the worker")
        let first = try cachedListing()
        XCTAssertTrue(first.mapped.contains(plugin), "the plugin is among the files its worker mapped")
        XCTAssertTrue(try listedFromCache(), "warm: nothing changed")

        // A changed manifest: listed again, then cached under the new identity.
        try writeManifest(api: "1.3.1")
        XCTAssertFalse(try listedFromCache(), "the Vulkan manifest changed")
        XCTAssertNotEqual(try cachedListing().identity, first.identity)
        XCTAssertTrue(try listedFromCache())

        // A replaced driver file (a new file renamed over it, as a package upgrade does).
        try replace(vkDriver, "vulkan driver, build 2")
        XCTAssertFalse(try listedFromCache(), "the driver the Vulkan manifest names was replaced")
        XCTAssertTrue(try listedFromCache())
        // The same bytes written again: the driver is identified by content, not by its times.
        try replace(vkDriver, "vulkan driver, build 2")
        XCTAssertTrue(try listedFromCache(), "rewritten with the same content")

        try replace(clDriver, "opencl driver, build 2")
        XCTAssertFalse(try listedFromCache(), "the driver the OpenCL vendor file names was replaced")
        try write(vendors + "/other.icd", clDriver + "\n")
        XCTAssertFalse(try listedFromCache(), "an OpenCL vendor file was added")
        XCTAssertTrue(try listedFromCache())

        // A replaced plugin: listed and probed again.
        let before = try cachedListing().pluginSHA256
        let bytes = try Data(contentsOf: URL(fileURLWithPath: plugin))
        try (bytes + [0]).write(to: URL(fileURLWithPath: plugin + ".new"))
        XCTAssertEqual(rename(plugin + ".new", plugin), 0)
        let replaced = try probe()
        XCTAssertEqual(replaced.units.map(\.listingCached), [false])
        XCTAssertEqual(replaced.units.map(\.cached), [false], "a new plugin build is probed again")
        XCTAssertNotEqual(try cachedListing().pluginSHA256, before)
        XCTAssertTrue(try listedFromCache())
    }

    private func write(_ path: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func replace(_ path: String, _ text: String) throws {
        try write(path + ".tmp", text)
        XCTAssertEqual(rename(path + ".tmp", path), 0)
    }
}
