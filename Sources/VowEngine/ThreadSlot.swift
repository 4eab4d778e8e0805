#if canImport(Glibc)
import Glibc
#endif

/// A per-thread slot that owns one object (+1) for each thread, released when that thread
/// ends: a pthread key whose destructor releases what it holds. The engine keeps its
/// `ThreadState` in one; the faces keep their per-thread state the same way.
///
/// Only a thread itself reads or replaces its own object.
package struct ThreadSlot: @unchecked Sendable {
    // @unchecked: a pthread key is a number fixed once made; each thread's value is only
    // touched by that thread.
    @usableFromInline let key: pthread_key_t

    /// Makes the key (once per slot: keep slots in globals or statics).
    package init() {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { raw in
            if let raw { Unmanaged<AnyObject>.fromOpaque(raw).release() }
        }
        precondition(rc == 0, "vow: pthread_key_create failed (\(rc))")
        self.key = key
    }

    /// This thread's object, not retained (the slot keeps it alive), or nil.
    @inlinable @inline(__always)
    var raw: UnsafeMutableRawPointer? { pthread_getspecific(key) }

    /// This thread's object, made by `make` and kept in the slot on first use. Returned
    /// unretained: it lives as long as the thread, unless the thread replaces it.
    @inlinable @inline(__always)
    package func object<T: AnyObject>(orMake make: () -> T) -> Unmanaged<T> {
        if let raw { return Unmanaged<T>.fromOpaque(raw) }
        let made = Unmanaged.passRetained(make())
        pthread_setspecific(key, made.toOpaque())
        return made
    }

    /// Replaces this thread's object with `object` (retained; nil empties the slot) and
    /// releases the one it held.
    package func replace(with object: AnyObject?) {
        let previous = raw
        if previous == nil, object == nil { return }
        pthread_setspecific(key, object.map { Unmanaged.passRetained($0).toOpaque() })
        if let previous { Unmanaged<AnyObject>.fromOpaque(previous).release() }
    }
}
