import Synchronization

/// A pending promise that carries its resolver: for a face whose resolver is a handle with
/// references of its own, promise and resolver in one allocation instead of two.
///
/// The resolver's handle is an interior pointer into this object (`resolverHandle`), placed
/// so that `resolverTag` lies `Continuation.tagOffset` bytes past it, where every handle's
/// tag lies: a face checks a resolver handle as it checks its other handles, then finds the
/// promise at a fixed distance (`promise(fromResolverHandle:)`). The offsets are in
/// Interface.swift, "C-handle layout".
///
/// References: the resolver counts its own (`resolverReferences`, starting at one for the
/// face's caller) and, while that count is above zero, holds one reference to the promise.
/// When the count falls to zero (`releaseResolver`), on the thread that released it: the
/// tag becomes `Continuation.releasedTag`, the broken-promise rule applies
/// (`breakIfResolverUnused`), and the promise reference goes.
package final class ResolvableCore: Core, @unchecked Sendable {
    // @unchecked: see `Core`; `resolverTag` changes once, when the last resolver
    // reference goes (nobody may use the handle after that), and the count is atomic.

    /// The face's tag for the resolver handle; `Continuation.releasedTag` once released.
    @exclusivity(unchecked) @usableFromInline var resolverTag: UInt32
    /// References to the resolver handle.
    @usableFromInline let resolverReferences = Atomic<UInt32>(1)

    /// A pending promise whose resolver handle carries `resolverTag`, with one reference to
    /// the resolver (and, for it, one to the promise, on top of the caller's).
    @inlinable @inline(__always)
    package init(resolverTag: UInt32) {
        self.resolverTag = resolverTag
        super.init()
        _ = Unmanaged.passUnretained(self).retain()
        assert(withUnsafeMutablePointer(to: &self.resolverTag) { UnsafeRawPointer($0) }
               == UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) + Self.resolverTagOffset,
               "ResolvableCore: resolverTag is not where resolverTagOffset says")
    }

    /// One more reference to the resolver.
    @inlinable
    package func retainResolver() {
        resolverReferences.wrappingAdd(1, ordering: .relaxed)
    }

    /// One reference less to the resolver of `promise`; the last one releases the resolver
    /// (see the type's comment) and with it the resolver's reference to the promise.
    @inlinable
    package static func releaseResolver(of promise: Unmanaged<ResolvableCore>) {
        let wasLast = promise._withUnsafeGuaranteedRef { core -> Bool in
            guard core.resolverReferences.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 else {
                return false
            }
            core.resolverTag = Continuation.releasedTag
            core.breakIfResolverUnused()
            return true
        }
        if wasLast { promise.release() }
    }
}
