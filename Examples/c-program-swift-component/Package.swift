// swift-tools-version:6.1
import PackageDescription

// A Swift component for a C program, built with SwiftPM against the installed Vow
// (`make install`): libWordStats.so links the installed libvow.so, the one the C program
// links, so the process holds one engine whatever the link order. Needs only the
// installed prefix (PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig), no checkout of Vow.
let package = Package(
    name: "WordStats",
    products: [
        .library(name: "WordStats", type: .dynamic, targets: ["WordStats"]),
    ],
    targets: [
        // The installed Vow: `import Vow` finds its modules and the product links its
        // libvow.so, through pkg-config (vow-swift.pc). Sources/InstalledVow holds only a
        // module map.
        .systemLibrary(name: "InstalledVow", pkgConfig: "vow-swift"),
        .target(
            name: "WordStats",
            dependencies: ["InstalledVow"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
