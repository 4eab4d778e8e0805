/// The base of every object a C handle points at except promises (resolvers, values,
/// errors, dispatchers, trampolines, host jobs); a `vow_promise *` is the engine's `Core`,
/// which keeps its own tag in the same place.
///
/// The first stored property is a 32-bit type tag at a fixed offset (`handleTagOffset`,
/// the same as `Continuation.tagOffset`), so the C entry points can check cheaply that a
/// `vow_value *` really is a value (and not a promise, or an object already released)
/// before touching it. The tag is stored as its full raw value, four ASCII letters (an
/// enum would be stored as a one-byte case index, which stray memory matches far too
/// easily). `deinit` overwrites the tag, so a handle used after its last release is
/// usually caught too (not always: the memory may be reused).
class HandleObject {
    /// The tag's raw value; read by the C entry points without retaining the object.
    final var rawHandleTag: UInt32

    final var handleTag: HandleTag {
        get { HandleTag(rawValue: rawHandleTag) ?? .released }
        set { rawHandleTag = newValue.rawValue }
    }

    init(tag: HandleTag) { rawHandleTag = tag.rawValue }

    deinit { rawHandleTag = HandleTag.released.rawValue }
}

/// Where `rawHandleTag` lives inside a `HandleObject`: right after the Swift object header
/// (isa pointer and reference counts, two words on 64-bit platforms), where the engine
/// keeps a promise's tag too. Checked by a test.
let handleTagOffset = Continuation.tagOffset

/// Tags of the C handle types; the raw values spell the type in ASCII ("prom", "reso",
/// ...), so they stand out in a debugger and are unlikely to appear by chance.
enum HandleTag: UInt32 {
    case promise = 0x6d6f_7270     // "prom" (the engine's `Core.promiseTag`)
    case resolver = 0x6f73_6572    // "reso"
    case primaryResolver = 0x7073_6572  // "resp" (inside its promise: the engine's `ResolvableCore`)
    case value = 0x756c_6176       // "valu"
    case error = 0x6f72_7265       // "erro"
    case dispatcher = 0x7073_6964  // "disp"
    case trampoline = 0x6d61_7274  // "tram"
    case job = 0x2062_6f6a         // "job "
    case swiftJob = 0x626f_6a73    // "sjob" (a Swift job handed to a host loop: see CExecutorJobs.swift)
    case testLoop = 0x706f_6c74    // "tlop"
    case released = 0x6461_6564    // "dead" (a released handle; the engine's `Continuation.releasedTag`)

    var typeName: String {
        switch self {
        case .promise: return "vow_promise"
        case .resolver, .primaryResolver: return "vow_resolver"
        case .value: return "vow_value"
        case .error: return "vow_error"
        case .dispatcher: return "vow_dispatcher"
        case .trampoline: return "vow_trampoline"
        case .job: return "job"
        case .swiftJob: return "Swift job"
        case .testLoop: return "vow_test_loop"
        case .released: return "a released handle"
        }
    }
}
