// swift-tools-version:6.1
import PackageDescription
import class Foundation.ProcessInfo

// Benchmarks for Vow, kept in a package of their own so the library itself depends on
// nothing. Two ways to run them:
//
//   swift package --allow-writing-to-package-directory benchmark   (ordo-one/benchmark:
//       wall time, malloc counts, percentiles; `make bench` at the top runs this)
//   ./summary.sh                                                   (one table: Vow next
//       to swift-nio and a bare lock+closure box, as ratios; see README.md)
//
// Every workload is written once, in BenchWorkloads, and both runners call it.
// VOW_PATH=/other/checkout measures another copy of the library (say, before and after a
// change to the engine); by default, the repository this folder belongs to.
let vowPath = ProcessInfo.processInfo.environment["VOW_PATH"] ?? ".."
// Copies of Vow from before VowNIO (its "NIO" trait) are measured without the
// nio-dispatcher-chain workload.
let vowManifest = (try? String(contentsOfFile: vowPath + "/Package.swift", encoding: .utf8)) ?? ""
let vowHasNIO = vowManifest.contains("VowNIO")
// One copy of the engine in each program: the workloads link Vow statically (the static
// product; VowNIO, also static, brings the same copy), and their C code calls that copy's
// vow_* functions. Linking the dynamic `vow` product besides would load a second copy
// (libvow.so): Vow then warns on standard error and every C handle check takes the slow
// path that tells the copies apart. summary.sh builds libvow.so on its own for the C++
// bench. (Copies of Vow from before VowSwiftOnly call the static product `Vow`.)
let vowStatic = Target.Dependency.product(name: vowManifest.contains("VowSwiftOnly") ? "VowSwiftOnly" : "Vow",
                                          package: "Vow")

let package = Package(
    name: "VowBenchmarks",
    dependencies: [
        // With the NIO trait: the VowNIO bridge (EventLoopDispatcher) for nio-dispatcher-chain.
        vowHasNIO ? .package(name: "Vow", path: vowPath, traits: ["NIO"]) : .package(name: "Vow", path: vowPath),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // C workloads calling include/vow.h (the header is reached through the `vow`
        // symlink in the target folder).
        .target(
            name: "CVowBench",
            dependencies: [vowStatic],
            cSettings: [.headerSearchPath("vow"), .unsafeFlags(["-O2"])]
        ),
        // libuv, for the C server benchmarks on the libuv bridge (Debian: libuv1-dev,
        // installed by scripts/install-deps.sh).
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        // Bluebird's server benchmarks in C (doxbee, parallel; callbacks and Vow) on a libuv
        // loop, with the libuv bridge compiled in (the `uv` and `common` symlinks to
        // ../../../Bridges; vow.h and vow_uv.h through the `vow` symlink).
        .target(
            name: "CServerBench",
            dependencies: ["CLibUV", vowStatic],
            cSettings: [.headerSearchPath("vow"), .unsafeFlags(["-O2"])]
        ),
        // Counts malloc/calloc/realloc/posix_memalign/aligned_alloc calls of the whole
        // process (definitions in the executable interpose libc's). BenchSummary only:
        // the ordo-one runner brings its own interposer.
        .target(name: "CAllocCounter"),
        // The bytes in use and their peak, process-wide (Tests/Alloc/alloc_bytes.c, through a
        // symlink): ServerMemory only.
        .target(name: "CAllocBytes"),
        // The workloads: Vow (Swift and C), swift-nio, the bare box, and Vow on a swift-nio
        // loop through VowNIO.
        .target(
            name: "BenchWorkloads",
            dependencies: [
                "CVowBench",
                "CServerBench",
                vowStatic,
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ] + (vowHasNIO ? [.product(name: "VowNIO", package: "Vow")] : []),
            swiftSettings: [.swiftLanguageMode(.v6)] + (vowHasNIO ? [.define("VOW_NIO")] : [])
        ),
        // The summary table: plain ContinuousClock timing, medians of 7 runs.
        .executableTarget(
            name: "BenchSummary",
            dependencies: ["BenchWorkloads", "CAllocCounter"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The peak memory per request of the server workloads (summary.sh runs it).
        // The engine's lock under contention (4 and 16 threads on one promise) and alone:
        // Benchmarks/README.md, "One lock".
        .executableTarget(
            name: "LockContention",
            dependencies: [vowStatic],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "ServerMemory",
            dependencies: ["BenchWorkloads", "CAllocBytes"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The ordo-one/benchmark suite.
        .executableTarget(
            name: "VowBenchmarks",
            dependencies: [
                "BenchWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/VowBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
