// swift-tools-version:6.1
import PackageDescription

// Vow: promises for Swift that C programs share.
// It depends on the toolchain (Swift, Dispatch, Synchronization) and on the system libffi
// only.
//
// One engine per process: promises are objects of one copy of the engine, so a process
// in which C code uses Vow holds exactly one, libvow.so. The products:
//
//   vow           the shared library C programs link (libvow.so, `-lvow`, `pkg-config vow`;
//                 SwiftPM names the file after the product, so the name stays). What
//                 `make install` builds and installs. Swift code in a process where C uses
//                 Vow does not depend on it: it links the installed libvow.so through
//                 pkg-config (README, "One engine per process"), because a package that
//                 depends on `vow` builds a libvow.so of its own, and which of two files
//                 named libvow.so a process loads depends on the search order.
//   VowSwiftOnly  for Swift programs and libraries in which no C code uses Vow: `import Vow`,
//                 the engine linked into the depending product as SwiftPM chooses (a copy
//                 of its own). Loaded next to libvow.so, that copy is a second engine: both
//                 say so when they load and refuse each other's handles.
//
// Deprecated, kept for one more release (see MIGRATION.md, "One engine per process"):
//   Vow           the old name of VowSwiftOnly (it differed from `vow` only by case).
let package = Package(
    name: "Vow",
    products: [
        .library(name: "vow", type: .dynamic, targets: ["Vow"]),
        .library(name: "VowSwiftOnly", targets: ["Vow"]),
        // Deprecated: the old name of VowSwiftOnly, removed in the release after this one.
        .library(name: "Vow", targets: ["Vow"]),
        // Test support: `TestLoop`, a serial dispatcher and a virtual clock in one, for the
        // tests of code that uses Vow (depend on it from test targets only).
        .library(name: "VowTesting", targets: ["VowTesting"]),
    ],
    targets: [
        // The C face: the public header (include/vow.h, symlinked) and one .c file that
        // includes it, so header edits are noticed by the build; and the finding of other
        // copies of the engine when this one loads (vow_engine_copies.h / .c, internal).
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

// MARK: VowPromiseKit (issue 36): PromiseKit 6/8's names over Vow
//
// A compatibility layer for code written against PromiseKit: it re-exports Vow and adds
// PromiseKit's spellings (`Guarantee`, `PMKError`, `PMKNamespacer`, `on: DispatchQueue?`,
// `flags:`, `ensure`, `hang`, `after(.milliseconds(n))`, ...) as thin calls into Vow's own
// (one engine, Vow's rules; MIGRATION.md, "The PromiseKit compatibility layer"). A file
// that said `import PromiseKit` says `import VowPromiseKit`. Uses Dispatch (PromiseKit's API
// is DispatchQueue-based), not Foundation. Its tests run in the swift-tests and tsan stages.
package.products.append(.library(name: "VowPromiseKit", targets: ["VowPromiseKit"]))
package.targets.append(contentsOf: [
    .target(
        name: "VowPromiseKit",
        dependencies: ["Vow"],
        swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .testTarget(
        name: "VowPromiseKitTests",
        dependencies: ["VowPromiseKit"],
        swiftSettings: [.swiftLanguageMode(.v6)]
    ),
])
