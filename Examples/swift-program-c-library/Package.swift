// swift-tools-version:6.1
import PackageDescription

// A Swift program that uses a C library built on vow.h (clib/, libtally.so), against the
// installed Vow (`make install`): the program and the library link the same installed
// libvow.so, so the process holds one engine. Needs only the installed prefix
// (PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig), no checkout of Vow.
let package = Package(
    name: "TallyApp",
    targets: [
        // The installed Vow: `import Vow` finds its modules and the program links its
        // libvow.so, through pkg-config (vow-swift.pc).
        .systemLibrary(name: "InstalledVow", pkgConfig: "vow-swift"),
        // The C library: its header (clib/tally.h) as a module, linked with -ltally.
        .systemLibrary(name: "CTally"),
        .executableTarget(
            name: "TallyApp",
            dependencies: ["InstalledVow", "CTally"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
