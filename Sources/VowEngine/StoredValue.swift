/// How a promise keeps its value or error: one word and the value's type.
///
/// A value whose type fits in one word (an `Int`, a `Double`, a class reference, an
/// `Array`: size and alignment at most 8, bitwise movable) is stored in the word itself;
/// anything bigger is stored in a `ValueBox` whose reference is the word. An error is
/// stored as a value of type `any Error` (one word). So a promise is typed storage without
/// being a generic class: typed code reads the value back with one type comparison and a
/// load, no dynamic cast, and no generic metadata is needed to free a promise.
///
/// Ownership: a `StoredValue` owns what its word holds (+1) and destroys it in `deinit`;
/// it is moved into and out of a promise, never copied (`~Copyable`).
@usableFromInline package struct StoredValue: ~Copyable, @unchecked Sendable {
    // @unchecked: the word holds a value of `type`; values cross threads inside promises,
    // as in every promise library (the typed faces check `Sendable` where Swift can).

    /// How the word holds the value, so copying and destroying it needs no look at `type`
    /// on the common paths.
    @usableFromInline
    package enum Storage: UInt32, Sendable {
        /// Inline, trivially copyable (`Int`, `Double`, `Bool`): nothing to release.
        case plain = 0
        /// Inline, one strong reference to a Swift object (a class instance).
        case object = 1
        /// Inline, anything else that fits (an `Array`, an `any Error`): copied and
        /// destroyed through `type`.
        case inline = 2
        /// A retained `ValueBox`.
        case boxed = 3
    }

    @usableFromInline var bits: UInt
    @usableFromInline var type: Any.Type
    @usableFromInline var storage: Storage

    /// Takes over `bits` as a value of `type`.
    @inlinable
    init(bits: UInt, type: Any.Type, storage: Storage) {
        self.bits = bits
        self.type = type
        self.storage = storage
    }

    /// Stores `value`. (Always inlined: specialized, it folds to a few stores.)
    @inlinable @inline(__always)
    package init<T>(_ value: T) {
        type = T.self
        if StoredValue.fitsInWord(T.self) {
            var word: UInt = 0
            storeInWord(value, &word)
            bits = word
            storage = _isPOD(T.self) ? .plain : (T.self is AnyObject.Type ? .object : .inline)
        } else {
            bits = UInt(bitPattern: Unmanaged.passRetained(ValueBox.make(value)).toOpaque())
            storage = .boxed
        }
    }

    /// Stores an error (as a value of type `any Error`: one reference to the runtime's
    /// error box, retained and released like an object).
    @inlinable
    init(error: any Error) {
        var word: UInt = 0
        // `as any Error` keeps the existential closed: passed as it is, Swift would open
        // it and store the concrete error instead of the one-word box.
        storeInWord(error as any Error, &word)
        self.init(bits: word, type: (any Error).self, storage: .object)
    }

    deinit {
        StoredValue.destroy(bits: bits, type: type, storage: storage)
    }

    /// Gives up ownership of the word: the caller now owns what it holds.
    @usableFromInline
    consuming func release() -> (bits: UInt, type: Any.Type, storage: Storage) {
        let parts = (bits, type, storage)
        discard self
        return parts
    }

    /// True when a `T` is kept in the word itself.
    @inlinable @inline(__always)
    static func fitsInWord<T>(_ type: T.Type) -> Bool {
        MemoryLayout<T>.size <= MemoryLayout<UInt>.size
            && MemoryLayout<T>.alignment <= MemoryLayout<UInt>.alignment
            && _isBitwiseTakable(T.self)
    }

    /// A copy of the `T` kept in `bits` (the caller knows the type is `T`).
    @inlinable @inline(__always)
    package static func load<T>(_ type: T.Type, bits: UInt, storage: Storage) -> T {
        if storage == .boxed {
            let box = Unmanaged<ValueBox>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
            return box.load(T.self)
        }
        var word = bits
        return loadFromWord(T.self, &word)
    }

    /// A +1 copy of what `bits` holds.
    @usableFromInline static func copy(bits: UInt, type: Any.Type, storage: Storage) -> StoredValue {
        switch storage {
        case .plain:
            break
        case .object, .boxed:
            _ = Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).retain()
        case .inline:
            return copyInline(bits, type)
        }
        return StoredValue(bits: bits, type: type, storage: storage)
    }

    /// The value in `bits` as an `Any` (a copy).
    @usableFromInline package static func anyValue(bits: UInt, type: Any.Type, storage: Storage) -> Any {
        if storage == .boxed {
            return Unmanaged<ValueBox>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue().anyValue
        }
        return openInline(bits, type)
    }

    /// Destroys what `bits` holds.
    @usableFromInline static func destroy(bits: UInt, type: Any.Type, storage: Storage) {
        switch storage {
        case .plain:
            break
        case .object, .boxed:
            Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release()
        case .inline:
            destroyInline(bits, type)
        }
    }
}

/// Copies `value` into the word at `word` (which must fit it: `StoredValue.fitsInWord`).
/// A plain function rather than `withUnsafeMutableBytes`: generic code calls it without a
/// closure.
@inlinable @inline(__always)
func storeInWord<T>(_ value: T, _ word: UnsafeMutablePointer<UInt>) {
    UnsafeMutableRawPointer(word).assumingMemoryBound(to: T.self).initialize(to: value)
}

/// A copy of the `T` kept in the word at `word`.
@inlinable @inline(__always)
func loadFromWord<T>(_ type: T.Type, _ word: UnsafeMutablePointer<UInt>) -> T {
    UnsafeMutableRawPointer(word).assumingMemoryBound(to: T.self).pointee
}

private func copyInline(_ bits: UInt, _ type: Any.Type) -> StoredValue {
    func copy<T>(_: T.Type) -> StoredValue {
        StoredValue(withUnsafeBytes(of: bits) { $0.load(as: T.self) })
    }
    return _openExistential(type, do: copy)
}

private func openInline(_ bits: UInt, _ type: Any.Type) -> Any {
    func open<T>(_: T.Type) -> Any {
        withUnsafeBytes(of: bits) { $0.load(as: T.self) }
    }
    return _openExistential(type, do: open)
}

private func destroyInline(_ bits: UInt, _ type: Any.Type) {
    func destroy<T>(_: T.Type) {
        var word = bits
        withUnsafeMutableBytes(of: &word) { raw in
            _ = raw.baseAddress!.assumingMemoryBound(to: T.self).move()
        }
    }
    _openExistential(type, do: destroy)
}

/// A value too big for one word, on the heap: a non-generic buffer with the value in its
/// tail, so making, reading and freeing one needs no generic metadata of its own.
@usableFromInline final class ValueBox: ManagedBuffer<ValueBox.Header, UInt8> {
    @usableFromInline struct Header {
        @usableFromInline let type: Any.Type
        @usableFromInline let offset: Int

        @usableFromInline
        init(type: Any.Type, offset: Int) {
            self.type = type
            self.offset = offset
        }
    }

    @inlinable
    static func make<T>(_ value: T) -> ValueBox {
        let alignment = MemoryLayout<T>.alignment
        let buffer = ValueBox.create(minimumCapacity: MemoryLayout<T>.size + alignment) { buffer in
            let base = buffer.withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) }
            let aligned = base.alignedUp(toMultipleOf: alignment)
            return Header(type: T.self, offset: aligned - base)
        }
        let box = unsafeDowncast(buffer, to: ValueBox.self)
        box.withStorage { _ = $0.initializeMemory(as: T.self, to: value) }
        return box
    }

    /// The header, read through its pointer: `ManagedBuffer.header` is a class property,
    /// and every read of it is checked for exclusivity at run time (some 70 instructions).
    /// The header never changes after `make`.
    @inlinable
    var fixedHeader: Header {
        withUnsafeMutablePointerToHeader { $0.pointee }
    }

    @inlinable
    func withStorage<R>(_ body: (UnsafeMutableRawPointer) throws -> R) rethrows -> R {
        let offset = fixedHeader.offset
        return try withUnsafeMutablePointerToElements { try body(UnsafeMutableRawPointer($0) + offset) }
    }

    @inlinable
    func load<T>(_ type: T.Type) -> T {
        withStorage { $0.assumingMemoryBound(to: T.self).pointee }
    }

    @usableFromInline var anyValue: Any {
        func open<T>(_: T.Type) -> Any { load(T.self) }
        return _openExistential(fixedHeader.type, do: open)
    }

    deinit {
        func destroy<T>(_: T.Type) {
            withStorage { _ = $0.assumingMemoryBound(to: T.self).deinitialize(count: 1) }
        }
        _openExistential(fixedHeader.type, do: destroy)
    }
}
