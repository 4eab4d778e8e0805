// swift-tools-version:6.1
import PackageDescription

// The swift-nio example of the top-level README, as a package of its own that uses Vow the
// way a program outside the repository does: Vow with its "NIO" trait, and the VowNIO
// product. The test command (scripts/test.sh nio) builds and runs it.
//
// Beside it, OneEngine: a program whose C code (OneEngineC) shares promises with its Swift
// code, listing the products vow (libvow.so, for the C code), VowNIO and VowTesting the
// natural way: one engine in the process (the test command checks that too).
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
        .target(name: "OneEngineC", dependencies: [.product(name: "vow", package: "vow")]),
        .executableTarget(
            name: "OneEngine",
            dependencies: [
                "OneEngineC",
                .product(name: "vow", package: "vow"),
                .product(name: "VowNIO", package: "vow"),
                .product(name: "VowTesting", package: "vow"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
