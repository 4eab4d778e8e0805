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
    ]
)
