// swift-tools-version:6.1
import PackageDescription

// Vow: promises for Swift that C programs share.
// The library product `vow` is built as a shared library (libvow.so) that C programs link
// against through include/vow.h. It depends on the toolchain (Swift, Dispatch,
// Synchronization) and on the system libffi only.
let package = Package(
    name: "Vow",
    products: [
        .library(name: "vow", type: .dynamic, targets: ["Vow"]),
        // The same library for Swift packages that depend on Vow: `import Vow`, linked the
        // way the depending package chooses (a program that also loads libvow.so for C
        // code should depend on `vow` instead, so the process holds one engine).
        .library(name: "Vow", targets: ["Vow"]),
        // Test support: `TestLoop`, a serial dispatcher and a virtual clock in one, for the
        // tests of code that uses Vow (depend on it from test targets only).
        .library(name: "VowTesting", targets: ["VowTesting"]),
    ],
    targets: [
        // The C face: the public header (include/vow.h, symlinked) and one .c file that
        // includes it, so header edits are noticed by the build.
        .target(name: "CVow", path: "Sources/CVow"),
        // The system libffi, through pkg-config (Debian: libffi-dev).
        .systemLibrary(
            name: "CFFI",
            path: "Sources/CFFI",
            pkgConfig: "libffi",
            providers: [.apt(["libffi-dev"])]
        ),
        // The engine: the promise state machine, the link primitive, dispatchers,
        // cancellation, waiting, unhandled-error tracking. Knows nothing of the faces.
        .target(
            name: "VowEngine",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The faces: Promise<T>, AnyPromise, the C interface (vow.h), libffi calls.
        .target(
            name: "Vow",
            dependencies: ["VowEngine", "CVow", "CFFI"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "VowTests",
            dependencies: ["Vow"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // VowTesting: `TestLoop` over the engine's test loop (the same one C's vow_testing.h
        // drives in libvow.so).
        .target(
            name: "VowTesting",
            dependencies: ["Vow"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A C program's own event loop (a pthread running a vow_dispatcher_new queue), for
        // the executor tests: test-only.
        .target(
            name: "CHostLoop",
            dependencies: ["CVow"],
            path: "Tests/CHostLoop"
        ),
        // The tests of VowTesting, of the executors, and the timer tests on virtual time.
        .testTarget(
            name: "VowTestingTests",
            dependencies: ["VowTesting", "Vow", "CHostLoop"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)

// MARK: VowNIO (trait "NIO", off by default)
//
// The swift-nio bridge: `EventLoopDispatcher`, `Promise(future)`, `futureResult(on:)`.
// With the trait off (the default) nothing here is resolved, fetched or built beyond two
// empty modules: the core keeps no dependency. A user turns it on with
//   .package(url: "…/vow", from: "…", traits: ["NIO"])
// and depends on `.product(name: "VowNIO", package: "vow")`.
package.traits.formUnion([
    .trait(name: "NIO", description: "Builds VowNIO, the swift-nio bridge (depends on swift-nio)."),
    .default(enabledTraits: []),
])
package.dependencies.append(.package(url: "https://github.com/apple/swift-nio", from: "2.101.0"))
package.products.append(.library(name: "VowNIO", targets: ["VowNIO"]))
package.targets.append(contentsOf: [
    .target(
        name: "VowNIO",
        dependencies: [
            "Vow",
            .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NIO"])),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["NIO"])),
        ],
        swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .testTarget(
        name: "VowNIOTests",
        dependencies: [
            "VowNIO",
            .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NIO"])),
            .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["NIO"])),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["NIO"])),
        ],
        swiftSettings: [.swiftLanguageMode(.v6)]
    ),
])
