// swift-tools-version:6.1
import PackageDescription

// The swift-nio example of the top-level README, as a package of its own that uses Vow the
// way a program outside the repository does: Vow with its "NIO" trait, and the VowNIO
// product. The test command (scripts/test.sh nio) builds and runs it.
let package = Package(
    name: "NIOExample",
    dependencies: [
        // Outside this repository:
        //   .package(url: "https://…/vow.git", from: "0.3.0", traits: ["NIO"]),
        .package(name: "vow", path: "../..", traits: ["NIO"]),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        .executableTarget(
            name: "NIOExample",
            dependencies: [
                .product(name: "VowNIO", package: "vow"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
