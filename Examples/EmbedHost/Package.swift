// swift-tools-version:5.9
// A separate package that embeds the host library, as a third party would: it is built
// and run by scripts/test.sh so the README's embedding example stays true.
import PackageDescription

let package = Package(
    name: "EmbedHost",
    dependencies: [.package(name: "WaiHost", path: "../..")],
    targets: [
        .executableTarget(name: "EmbedHost", dependencies: [.product(name: "WaiHost", package: "WaiHost")]),
    ]
)
