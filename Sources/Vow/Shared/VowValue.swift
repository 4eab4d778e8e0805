import CVow
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An immutable value as C sees it: `vow_value *` is this object, passed with `Unmanaged`.
///
/// Values keep their identity: the engine stores the object itself, so the handle that
/// fulfils a promise is the handle every reader gets back (callbacks, `vow_promise_value`,
/// list items). Swift values that C must see are converted with `bridging(_:)`; C values
/// that Swift must see are converted by `Bridging.unbox` (typed) or `swiftValue()`
/// (untyped).
///
/// Freeing: releasing the last reference to a LIST, PROMISE or ERROR value never recurses
/// into what it holds, however deep the nesting (`NestedRelease`).
///
/// Ownership: a STRING or BYTES value owns one malloc'd C copy of its contents, made once
/// in `init`, so `vow_value_get_string` / `_get_bytes` hand out borrowed pointers valid
/// for the value's life. A POINTER's or THENABLE's `destroy` runs exactly once, in
/// `deinit`, on whichever thread drops the last reference.
final class VowValue: HandleObject, @unchecked Sendable {
    // @unchecked: immutable after `init`. What it carries is either immutable (scalars,
    // strings, lists of values), thread-safe (promises, errors), or the host's to make
    // thread-safe (C pointers and thenable objects, as the header says); a `.swift` value
    // is only handed back, never used here.

    /// What a value holds, one case per `vow_kind`.
    enum Content {
        case null
        case bool(Bool)
        case int(Int64)
        case double(Double)
        /// UTF-8 text (the C copy lives in the value; see `stringPointer`).
        case string(String)
        case bytes([UInt8])
        /// A C pointer and the destructor that runs once when the value goes.
        case pointer(UnsafeMutableRawPointer?, CDestroy?)
        case list([VowValue])
        /// A promise carried as a value: resolving with it adopts it.
        case promise(Core)
        /// An error carried as data (`vow_join` results): it rejects nothing.
        case error(VowErrorBox)
        /// A host object described by a `vow_thenable_class` (kept, never copied), with
        /// the destructor that runs once when the value goes.
        case thenable(UnsafePointer<vow_thenable_class>, UnsafeMutableRawPointer?, CDestroy?)
        /// A Swift value with no C form: passed through, and handed back to Swift as is.
        case swift(Any)
    }

    /// What the value holds. Never changes while the value is alive: `deinit` alone moves
    /// a LIST's, PROMISE's or ERROR's content out, to free it without recursion (see
    /// `NestedRelease`).
    // Unchecked exclusivity: only `deinit` writes it, when no other access can exist, so
    // the dynamic access checks of a class `var` (two runtime calls per read) buy nothing.
    @exclusivity(unchecked) private(set) var content: Content

    /// Set once a walk of `reaches(_:)` found that everything this value holds is settled
    /// for good (no pending promise anywhere inside): such a value can never close a cycle,
    /// so later walks stop here. Only ever goes from false to true.
    let reachesOnlySettled = Atomic<Bool>(false)

    /// True for a PROMISE or THENABLE: the resolution procedure adopts or assimilates it
    /// (every other value fulfils as it is; checked without copying `content`).
    let needsProcedure: Bool

    /// True for a LIST, PROMISE or ERROR: what may hold a promise, directly or inside, so
    /// what `reaches(_:)` must walk (every other kind answers at once, without copying
    /// `content`).
    let mayHoldPromises: Bool

    /// The C kind (`vow_kind`'s raw value), fixed at creation: `kind` and `deinit` read this
    /// byte instead of switching over `content` (each switch over a class's enum property
    /// copies it: an outlined copy and destroy, some 50 instructions). It sits in the
    /// padding before `cBuffer`: the object is no larger.
    private let kindCode: Int8

    /// The C copy of a STRING (NUL-terminated) or BYTES value; nil for other kinds and
    /// for empty bytes.
    private let cBuffer: UnsafeMutableRawPointer?

    /// Makes a value. A `.string` or `.bytes` content is copied once into a C buffer.
    ///
    /// One switch over `content`, binding a payload only where one is read (each switch,
    /// and each bound payload, is a copy of the content otherwise).
    init(_ content: Content) {
        var procedure = false
        var holds = false
        var buffer: UnsafeMutableRawPointer?
        let kind: vow_kind
        switch content {
        case .null: kind = VOW_KIND_NULL
        case .bool: kind = VOW_KIND_BOOL
        case .int: kind = VOW_KIND_INT
        case .double: kind = VOW_KIND_DOUBLE
        case .string(let text):
            kind = VOW_KIND_STRING
            buffer = VowValue.cCopy(of: text)
        case .bytes(let bytes):
            kind = VOW_KIND_BYTES
            buffer = VowValue.cCopy(of: bytes)
        case .pointer: kind = VOW_KIND_POINTER
        case .list:
            kind = VOW_KIND_LIST
            holds = true
        case .promise:
            kind = VOW_KIND_PROMISE
            procedure = true
            holds = true
        case .error:
            kind = VOW_KIND_ERROR
            holds = true
        case .thenable:
            kind = VOW_KIND_THENABLE
            procedure = true
        case .swift: kind = VOW_KIND_SWIFT
        }
        needsProcedure = procedure
        mayHoldPromises = holds
        kindCode = Int8(truncatingIfNeeded: kind.rawValue)
        cBuffer = buffer
        self.content = content
        super.init(tag: .value)
    }

    /// A malloc'd, NUL-terminated copy of `text`'s UTF-8.
    private static func cCopy(of text: String) -> UnsafeMutableRawPointer {
        var text = text
        return text.withUTF8 { utf8 in
            let buffer = malloc(utf8.count + 1)!
            if let base = utf8.baseAddress { memcpy(buffer, base, utf8.count) }
            buffer.storeBytes(of: 0, toByteOffset: utf8.count, as: UInt8.self)
            return buffer
        }
    }

    /// A malloc'd copy of `bytes`; nil when there are none.
    private static func cCopy(of bytes: [UInt8]) -> UnsafeMutableRawPointer? {
        guard !bytes.isEmpty else { return nil }
        return bytes.withUnsafeBytes { source in
            let buffer = malloc(source.count)!
            memcpy(buffer, source.baseAddress!, source.count)
            return buffer
        }
    }

    deinit {
        free(cBuffer)
        switch kind {
        case VOW_KIND_POINTER, VOW_KIND_THENABLE:
            switch content {
            case .pointer(let pointer, let destroy?):
                destroy(pointer)
            case .thenable(_, let object, let destroy?):
                destroy(object)
            default:
                break
            }
        case VOW_KIND_LIST:
            // A short list of values that hold nothing (no LIST, PROMISE or ERROR inside) is
            // one level deep: released here, each element's deinit is flat. Anything deeper,
            // and a long list (not scanned twice), goes to the loop, as below.
            if case .list(let items) = content, items.count <= VowValue.flatListLimit,
               !items.contains(where: { $0.mayHoldPromises }) { break }
            NestedRelease.dispose(&content)
        case VOW_KIND_PROMISE, VOW_KIND_ERROR:
            // What these hold may hold values again, a million levels deep: handed to a
            // loop instead of being released here (which would recurse).
            NestedRelease.dispose(&content)
        default:
            break  // a scalar, a STRING, BYTES or a Swift value: freed with `content`
        }
    }

    /// The longest list `deinit` scans for nested values before releasing it in place.
    private static let flatListLimit = 16

    /// The NULL value the library itself hands out (a callback that set nothing, a timer
    /// that fired, Swift's `nil` and `()`). Immutable and shared; it lives as long as the
    /// process.
    static let sharedNull = VowValue(.null)

    /// A promise fulfilled with `sharedNull`, shared (the source of `vow_dispatch` links).
    static let nullPromise = Core(fulfilled: sharedNull)

    /// A STRING value holding a copy of the NUL-terminated UTF-8 `cString` (invalid
    /// sequences are replaced with U+FFFD).
    static func string(_ cString: UnsafePointer<CChar>) -> VowValue {
        VowValue(.string(String(cString: cString)))
    }

    /// A STRING value holding `text`.
    static func string(_ text: String) -> VowValue {
        VowValue(.string(text))
    }

    // MARK: Reading

    /// The C kind of this value (one load).
    var kind: vow_kind { vow_kind(rawValue: Int32(kindCode)) }

    var isNull: Bool { kindCode == Int8(VOW_KIND_NULL.rawValue) }

    /// A STRING's text as NUL-terminated UTF-8: borrowed, valid as long as this value
    /// lives. nil for other kinds.
    var stringPointer: UnsafePointer<CChar>? {
        guard case .string = content, let cBuffer else { return nil }
        return UnsafePointer(cBuffer.assumingMemoryBound(to: CChar.self))
    }

    /// A BYTES value's bytes: borrowed, valid as long as this value lives (nil when empty),
    /// and their count. nil for other kinds.
    var bytesPointer: (UnsafeRawPointer?, Int)? {
        guard case .bytes(let bytes) = content else { return nil }
        return (cBuffer.map { UnsafeRawPointer($0) }, bytes.count)
    }

    /// A LIST's items; nil for other kinds.
    var listElements: [VowValue]? {
        if case .list(let items) = content { return items }
        return nil
    }

    /// A short description of what this value holds, for type errors ("String",
    /// "a list of 3 values", "Int 300").
    var kindDescription: String {
        switch content {
        case .null: return "nil (a NULL value)"
        case .bool: return "Bool"
        case .int(let value): return "Int (\(value))"
        case .double: return "Double"
        case .string: return "String"
        case .bytes(let bytes): return "[UInt8] (\(bytes.count) bytes)"
        case .pointer: return "UnsafeMutableRawPointer"
        case .list(let items): return "a list of \(items.count) value\(items.count == 1 ? "" : "s")"
        case .promise: return "AnyPromise"
        case .error(let box): return "an error (\(box.domain) \(box.code))"
        case .thenable(let cls, let object, _):
            if cls == swiftThenableClass, let object {
                return "\(type(of: SwiftThenableBox.from(object).thenable))"
            }
            return "a foreign thenable"
        case .swift(let value): return "\(type(of: value))"
        }
    }
}
