/// The call interfaces (`ffi_cif` + type array, ctx appended) of the signatures
/// `vow_then_call` saw last, by signature text.
///
/// Parsing a signature and preparing its interface cost more than the rest of a link
/// (measured: about 1,600 of the 2,000 instructions a `vow_then_call` link adds to a
/// `vow_then` link), and programs use a handful of signatures over and over. A link holds
/// its interface (shared, read-only: `ffi_call` only reads a prepared cif), so an
/// interface lives while a link uses it or while it is among the `capacity` most recently
/// added; the cache itself stays small and bounded.
///
/// Threads: any. A lookup hashes the text outside the lock, then compares under it; new
/// entries are prepared outside the lock. Evicted interfaces are released after unlocking.
enum CallInterfaceCache {
    /// How many signatures are kept.
    static let capacity = 32

    private struct Entry {
        let hash: UInt64
        let text: [UInt8]
        let interface: CallInterface
    }

    private struct State {
        var entries: [Entry] = []
        /// The slot the next new entry replaces, once full (oldest first).
        var next = 0

        func lookUp(_ hash: UInt64, _ text: UnsafeBufferPointer<UInt8>) -> CallInterface? {
            for entry in entries where entry.hash == hash && entry.text.elementsEqual(text) {
                return entry.interface
            }
            return nil
        }
    }

    private static let state = Locked(State())

    /// The interface for the NUL-terminated `signature`, from the cache or parsed (bounded
    /// scan) and prepared now. A malformed signature is a `VowError(.signature)` with the
    /// parser's message, and is never cached.
    static func interface(forCString signature: UnsafePointer<CChar>) -> Result<CallInterface, VowError> {
        let length = Signature.boundedLength(signature, limit: Signature.maxLength + 1)
        let raw = UnsafeRawPointer(signature).assumingMemoryBound(to: UInt8.self)
        return interface(for: UnsafeBufferPointer(start: raw, count: length))
    }

    /// The interface for a Swift string signature (same cache).
    static func interface(for signature: String) -> Result<CallInterface, VowError> {
        var copy = signature
        return copy.withUTF8 { interface(for: $0) }
    }

    private static func interface(for text: UnsafeBufferPointer<UInt8>) -> Result<CallInterface, VowError> {
        let hash = fnv1a(text)
        if let hit = state.withLock({ $0.lookUp(hash, text) }) { return .success(hit) }

        let made: CallInterface
        do {
            let parsed = try Signature(parsing: text)
            guard let prepared = CallInterface(parsed, appendingContext: true) else {
                // libffi refuses no signature of the language on a supported ABI.
                return .failure(VowError(.signature, "libffi could not prepare a call for \(parsed.text)"))
            }
            made = prepared
        } catch {
            return .failure(VowError(.signature, error.message))
        }
        let entry = Entry(hash: hash, text: Array(text), interface: made)
        let (winner, evicted) = state.withLock { state -> (CallInterface, Entry?) in
            // Another thread may have added the same signature meanwhile: use its entry.
            if let existing = state.lookUp(hash, text) { return (existing, nil) }
            if state.entries.count < capacity {
                state.entries.append(entry)
                return (made, nil)
            }
            let old = state.entries[state.next]
            state.entries[state.next] = entry
            state.next = (state.next + 1) % capacity
            return (made, old)
        }
        withExtendedLifetime(evicted) {}
        return .success(winner)
    }

    /// Number of cached signatures (tests).
    static var count: Int { state.withLock { $0.entries.count } }

    /// 64-bit FNV-1a of the signature text.
    @inline(__always)
    private static func fnv1a(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
