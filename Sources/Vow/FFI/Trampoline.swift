import CFFI
import Synchronization

/// A C function pointer made at run time (`vow_trampoline`): an `ffi_closure` whose
/// handler hands the arguments of its first call to `receiver`; later calls do nothing.
///
/// Ownership: the object owns the closure (freed with `ffi_closure_free` in `deinit`), its
/// call interface (the closure points into it) and the receiver. C holds it through one
/// +1 reference from `vow_trampoline_new` and drops it with `vow_trampoline_release`.
/// The closure's user data is an unretained pointer to this object: calling the function
/// after the release is undefined behaviour, as the header says.
///
/// Threads: the function may be called from any thread, concurrently; an atomic flag lets
/// exactly one call through to `receiver`, which runs on the calling thread before the
/// call returns (so it can copy strings the caller owns).
final class Trampoline: HandleObject, @unchecked Sendable {
    // @unchecked: every stored property is immutable after `init`, except `fired`, which
    // is atomic.

    /// What the first call delivers: one scalar per parameter, in the parameter's C type.
    /// Pointers are the caller's and valid only during the call.
    typealias Receiver = @Sendable (_ arguments: [FFIScalar]) -> Void

    let interface: CallInterface
    /// The executable address C calls (what `vow_trampoline_function` returns).
    let function: UnsafeMutableRawPointer
    private let closure: UnsafeMutablePointer<ffi_closure>
    private let receiver: Receiver
    private let unused: @Sendable () -> Void
    private let fired = Atomic<Bool>(false)

    /// Makes a trampoline for `signature` (its return code must be `void`). `receiver` gets
    /// the arguments of the first call; `unused` runs in `deinit` if no call came. Returns
    /// nil if the return code is not `void` or libffi cannot make the closure (no memory).
    init?(_ signature: Signature, receiver: @escaping Receiver, unused: @escaping @Sendable () -> Void) {
        guard signature.returnCode == .void,
              let interface = CallInterface(signature, appendingContext: false) else { return nil }
        var code: UnsafeMutableRawPointer?
        guard let raw = ffi_closure_alloc(MemoryLayout<ffi_closure>.stride, &code), let code else {
            return nil
        }
        self.interface = interface
        self.closure = raw.bindMemory(to: ffi_closure.self, capacity: 1)
        self.function = code
        self.receiver = receiver
        self.unused = unused
        super.init(tag: .trampoline)
        let status = ffi_prep_closure_loc(closure, interface.cif, trampolineHandler,
                                          Unmanaged.passUnretained(self).toOpaque(), code)
        guard status == FFI_OK else {
            // deinit frees the closure; marked as fired so that `unused` does not run for
            // a trampoline nobody ever saw.
            fired.store(true, ordering: .releasing)
            return nil
        }
    }

    deinit {
        ffi_closure_free(closure)
        if !fired.load(ordering: .acquiring) { unused() }
    }

    /// True once the function was called.
    var wasCalled: Bool { fired.load(ordering: .acquiring) }

    /// Called by the closure handler, on the calling thread.
    fileprivate func received(_ args: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard !fired.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let codes = interface.signature.parameters
        var arguments: [FFIScalar] = []
        arguments.reserveCapacity(codes.count)
        for (index, code) in codes.enumerated() {
            guard let slot = args?[index] else {
                arguments.append(.pointer(nil))
                continue
            }
            arguments.append(CallInterface.loadArgument(code, from: slot))
        }
        receiver(arguments)
    }
}

/// The one libffi closure handler for every trampoline: `userData` is the `Trampoline`
/// (unretained; it outlives every legal call).
private let trampolineHandler: @convention(c) (UnsafeMutablePointer<ffi_cif>?, UnsafeMutableRawPointer?,
                                                UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                                UnsafeMutableRawPointer?) -> Void = { _, _, args, userData in
    guard let userData else { return }
    Unmanaged<Trampoline>.fromOpaque(userData).takeUnretainedValue().received(args)
}
