/// The base of every object a C handle points at (promises, resolvers, values, errors,
/// dispatchers, trampolines).
///
/// The first stored property is a type tag at a fixed offset (`handleTagOffset`), so the C
/// entry points can check cheaply that a `vow_value *` really is a value (and not a
/// promise, or an object already released) before touching it. The tag is stored as its
/// full 64-bit raw value (an enum would be stored as a one-byte case index, which stray
/// memory matches far too easily). `deinit` overwrites the tag, so a handle used after its
/// last release is usually caught too (not always: the memory may be reused).
@usableFromInline
class HandleObject {
    /// The tag's raw value; read by the C entry points without retaining the object.
    final var rawHandleTag: UInt64

    final var handleTag: HandleTag {
        get { HandleTag(rawValue: rawHandleTag) ?? .released }
        set { rawHandleTag = newValue.rawValue }
    }

    init(tag: HandleTag) { rawHandleTag = tag.rawValue }

    deinit { rawHandleTag = HandleTag.released.rawValue }
}

/// Where `rawHandleTag` lives inside a `HandleObject`: right after the Swift object header
/// (isa pointer and reference counts, two words on 64-bit platforms). Checked by a test.
let handleTagOffset = 2 * MemoryLayout<UInt>.size

/// Tags of the C handle types; the raw values spell the type in ASCII, so they stand out
/// in a debugger and are unlikely to appear by chance.
enum HandleTag: UInt64 {
    case promise = 0x6d6f_7270_2d77_6f76     // "vow-prom"
    case resolver = 0x6f73_6572_2d77_6f76    // "vow-reso"
    case value = 0x756c_6176_2d77_6f76       // "vow-valu"
    case error = 0x6f72_7265_2d77_6f76       // "vow-erro"
    case dispatcher = 0x7073_6964_2d77_6f76  // "vow-disp"
    case trampoline = 0x6d61_7274_2d77_6f76  // "vow-tram"
    case job = 0x2062_6f6a_2d77_6f76         // "vow-job "
    case released = 0x6464_6173_6165_6c65    // "eleased" (a released handle)

    var typeName: String {
        switch self {
        case .promise: return "vow_promise"
        case .resolver: return "vow_resolver"
        case .value: return "vow_value"
        case .error: return "vow_error"
        case .dispatcher: return "vow_dispatcher"
        case .trampoline: return "vow_trampoline"
        case .job: return "job"
        case .released: return "a released handle"
        }
    }
}
