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

    @usableFromInline package var bits: UInt
    @usableFromInline package var type: Any.Type
    @usableFromInline package var boxed: Bool

    /// Takes over `bits` as a value of `type` (`boxed`: `bits` is a retained `ValueBox`).
    @inlinable
    package init(bits: UInt, type: Any.Type, boxed: Bool) {
        self.bits = bits
        self.type = type
        self.boxed = boxed
    }

    /// Stores `value`.
    @inlinable
    package init<T>(_ value: T) {
        type = T.self
        if StoredValue.fitsInWord(T.self) {
            var word: UInt = 0
            withUnsafeMutableBytes(of: &word) { raw in
                _ = raw.baseAddress!.initializeMemory(as: T.self, to: value)
            }
            bits = word
            boxed = false
        } else {
            bits = UInt(bitPattern: Unmanaged.passRetained(ValueBox.make(value)).toOpaque())
            boxed = true
        }
    }

    /// Stores an error (as a value of type `any Error`).
    @inlinable
    package init(error: any Error) {
        self.init(error as any Error)
    }

    deinit {
        StoredValue.destroy(bits: bits, type: type, boxed: boxed)
    }

    /// Gives up ownership of the word: the caller now owns what it holds.
    @usableFromInline
    package consuming func release() -> (bits: UInt, type: Any.Type, boxed: Bool) {
        let parts = (bits, type, boxed)
        discard self
        return parts
    }

    /// True when a `T` is kept in the word itself.
    @inlinable @inline(__always)
    package static func fitsInWord<T>(_ type: T.Type) -> Bool {
        MemoryLayout<T>.size <= MemoryLayout<UInt>.size
            && MemoryLayout<T>.alignment <= MemoryLayout<UInt>.alignment
            && _isBitwiseTakable(T.self)
    }

    /// A copy of the `T` kept in `bits` (the caller knows the type is `T`).
    @inlinable @inline(__always)
    package static func load<T>(_ type: T.Type, bits: UInt, boxed: Bool) -> T {
        if boxed {
            let box = Unmanaged<ValueBox>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
            return box.load(T.self)
        }
        return withUnsafeBytes(of: bits) { $0.load(as: T.self) }
    }

    /// A +1 copy of what `bits` holds (a retained box, or a copy of the inline value).
    @usableFromInline package static func copy(bits: UInt, type: Any.Type, boxed: Bool) -> StoredValue {
        if boxed {
            _ = Unmanaged<ValueBox>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).retain()
            return StoredValue(bits: bits, type: type, boxed: true)
        }
        return copyInline(bits, type)
    }

    /// The value in `bits` as an `Any` (a copy).
    @usableFromInline package static func anyValue(bits: UInt, type: Any.Type, boxed: Bool) -> Any {
        if boxed {
            return Unmanaged<ValueBox>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue().anyValue
        }
        return openInline(bits, type)
    }

    /// Destroys what `bits` holds.
    @usableFromInline package static func destroy(bits: UInt, type: Any.Type, boxed: Bool) {
        if boxed {
            Unmanaged<ValueBox>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release()
        } else {
            destroyInline(bits, type)
        }
    }
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
        guard !_isPOD(T.self) else { return }
        var word = bits
        withUnsafeMutableBytes(of: &word) { raw in
            _ = raw.baseAddress!.assumingMemoryBound(to: T.self).move()
        }
    }
    _openExistential(type, do: destroy)
}

/// A value too big for one word, on the heap: a non-generic buffer with the value in its
/// tail, so making, reading and freeing one needs no generic metadata of its own.
@usableFromInline package final class ValueBox: ManagedBuffer<ValueBox.Header, UInt8> {
    @usableFromInline package struct Header {
        @usableFromInline package let type: Any.Type
        @usableFromInline package let offset: Int

        @usableFromInline
        init(type: Any.Type, offset: Int) {
            self.type = type
            self.offset = offset
        }
    }

    @inlinable
    package static func make<T>(_ value: T) -> ValueBox {
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

    @inlinable
    package func withStorage<R>(_ body: (UnsafeMutableRawPointer) throws -> R) rethrows -> R {
        let offset = header.offset
        return try withUnsafeMutablePointerToElements { try body(UnsafeMutableRawPointer($0) + offset) }
    }

    @inlinable
    package func load<T>(_ type: T.Type) -> T {
        withStorage { $0.assumingMemoryBound(to: T.self).pointee }
    }

    @usableFromInline package var anyValue: Any {
        func open<T>(_: T.Type) -> Any { load(T.self) }
        return _openExistential(header.type, do: open)
    }

    deinit {
        func destroy<T>(_: T.Type) {
            withStorage { _ = $0.assumingMemoryBound(to: T.self).deinitialize(count: 1) }
        }
        _openExistential(header.type, do: destroy)
    }
}
