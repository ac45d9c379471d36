// Where the tests find the repository and the products `swift build` made.

import Foundation

public enum TestPaths {
    /// The repository root, from this file's place (Tests/TestSupport/TestPaths.swift).
    public static let repositoryRoot: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// The repository's samples/ folder.
    public static var samples: String { repositoryRoot + "/samples" }

    /// The folder of the running test bundle, .build/<triple>/<config>: `swift build` puts
    /// every product there (the test command builds them all first).
    public static var buildProducts: String {
        (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent().path
    }

    /// A product beside the test bundle: `waihost`, `libWaiCPUBackend.so`, …
    public static func product(_ name: String) -> String { buildProducts + "/" + name }

    /// The `waihost` CLI beside the test bundle.
    public static var waihost: String { product("waihost") }
}
