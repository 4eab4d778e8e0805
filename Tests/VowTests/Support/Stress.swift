#if canImport(Glibc)
import Glibc
#endif

/// Iteration counts that adapt to the build: under ThreadSanitizer (the lead runs the
/// suite with `VOW_TSAN=1`) everything is 5 to 10 times slower, so stress loops shrink.
enum Stress {
    /// True when the environment says the suite runs under ThreadSanitizer.
    static let underTSan: Bool = {
        guard let raw = getenv("VOW_TSAN") else { return false }
        return String(cString: raw) == "1"
    }()

    /// `normal` iterations, or a tenth of them (at least 1) under TSan.
    static func iterations(_ normal: Int) -> Int {
        underTSan ? max(1, normal / 10) : normal
    }

    /// Links in a deep-chain test: 1,000,000 normally, 200,000 under TSan.
    static var chainLength: Int { underTSan ? 200_000 : 1_000_000 }

    /// A generous bound for waits that should end in milliseconds: long enough for a
    /// loaded 2-core machine under TSan, short enough that a hang fails the run.
    static var waitSeconds: Double { underTSan ? 60 : 20 }
}
