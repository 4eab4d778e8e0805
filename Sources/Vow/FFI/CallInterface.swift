import CFFI

/// A C scalar as libffi moves it: an argument going into a call, a return value coming
/// out, or an argument a trampoline received. Strings and `vow_value *` travel as
/// `.pointer`; the code in the signature says what the pointer is.
enum FFIScalar: Equatable, @unchecked Sendable {
    // @unchecked: `.pointer` carries a raw address; whoever made the scalar owns what it
    // points at (see the call and trampoline layers).
    case void
    case bool(Bool)
    case int32(Int32)
    case int64(Int64)
    case double(Double)
    case float(Float)
    case pointer(UnsafeMutableRawPointer?)
}

extension FFICode {
    /// libffi's description of the C type. `bool` is one unsigned byte (C99 `_Bool` on
    /// every ABI libffi supports); strings and values are pointers.
    var ffiType: UnsafeMutablePointer<ffi_type> {
        switch self {
        case .void: return vowffi_type_void()
        case .bool: return vowffi_type_uint8()
        case .int32: return vowffi_type_sint32()
        case .int64: return vowffi_type_sint64()
        case .double: return vowffi_type_double()
        case .float: return vowffi_type_float()
        case .string, .pointer, .value: return vowffi_type_pointer()
        }
    }
}

/// A prepared libffi call interface (`ffi_cif`) for one signature, with its type array.
///
/// Owns both on the heap for its whole life: libffi keeps pointers to them inside the cif,
/// and a closure (trampoline) keeps a pointer to the cif. Immutable after `init`: libffi
/// only reads a prepared cif, so one interface may serve calls on many threads at once.
final class CallInterface: @unchecked Sendable {
    // @unchecked: `cif` and `types` are written in `init` only and read afterwards
    // (ffi_call and closures only read a prepared cif).

    let signature: Signature
    /// True when the interface has an extra trailing `void *` parameter (`vow_then_call`'s ctx).
    let appendsContext: Bool
    let cif: UnsafeMutablePointer<ffi_cif>
    private let types: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>
    /// Parameters of the C function, ctx included.
    let argumentCount: Int

    /// Prepares the interface; nil if libffi refuses it (it does not for the codes of the
    /// signature language on supported ABIs; the caller reports it as a signature error).
    init?(_ signature: Signature, appendingContext: Bool) {
        self.signature = signature
        self.appendsContext = appendingContext
        let count = signature.parameters.count + (appendingContext ? 1 : 0)
        argumentCount = count
        cif = .allocate(capacity: 1)
        types = .allocate(capacity: max(count, 1))
        for (index, code) in signature.parameters.enumerated() {
            types[index] = code.ffiType
        }
        if appendingContext { types[count - 1] = vowffi_type_pointer() }
        let status = ffi_prep_cif(cif, vowffi_default_abi(), UInt32(count), signature.returnCode.ffiType, types)
        // On failure the instance is fully initialized, so `deinit` runs and frees both.
        guard status == FFI_OK else { return nil }
    }

    deinit {
        types.deallocate()
        cif.deallocate()
    }

    /// Calls `function` with `arguments` (one per parameter of the signature, each of the
    /// parameter's type, checked by the caller) and, if the interface appends it, `context`
    /// last. Runs on the calling thread, holding no lock. Pointers in `arguments` are only
    /// read during the call.
    func call(_ function: @convention(c) () -> Void, _ arguments: [FFIScalar],
              context: UnsafeMutableRawPointer?) -> FFIScalar {
        precondition(arguments.count == signature.parameters.count, "vow: argument count checked by the caller")
        let result = call(function, context: context) { index -> Result<FFIScalar, Never> in .success(arguments[index]) }
        switch result {
        case .success(let scalar): return scalar
        }
    }

    /// Calls `function` with the arguments `argument(index)` produces for each parameter
    /// (each of the parameter's type) and, if the interface appends it, `context` last.
    /// The first failure stops the conversion and is returned: the function is not called
    /// then. Arguments are written straight into libffi's slots on the stack.
    func call<Failure: Error>(_ function: @convention(c) () -> Void, context: UnsafeMutableRawPointer?,
                              _ argument: (Int) -> Result<FFIScalar, Failure>) -> Result<FFIScalar, Failure> {
        let parameterCount = signature.parameters.count
        let count = argumentCount
        // One 8-byte slot per argument (every type of the language fits), and libffi's array
        // of pointers to the slots; both on the stack (at most 33 of each).
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: max(count, 1)) { slots in
            withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(count, 1)) { pointers in
                let base = UnsafeMutableRawPointer(slots.baseAddress!)
                for index in 0..<parameterCount {
                    let slot = base + index * 8
                    slot.storeBytes(of: 0, as: UInt64.self)
                    switch argument(index) {
                    case .success(let scalar): CallInterface.store(scalar, at: slot)
                    case .failure(let failure): return .failure(failure)
                    }
                    pointers[index] = slot
                }
                if appendsContext {
                    let slot = base + (count - 1) * 8
                    slot.storeBytes(of: context, as: UnsafeMutableRawPointer?.self)
                    pointers[count - 1] = slot
                }
                // The return buffer must hold at least an ffi_arg (libffi widens narrow
                // integer returns to it).
                return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2) { returnSlot in
                    let returnBase = UnsafeMutableRawPointer(returnSlot.baseAddress!)
                    returnBase.storeBytes(of: 0, as: UInt64.self)
                    ffi_call(cif, function, returnBase, pointers.baseAddress)
                    return .success(CallInterface.loadReturn(signature.returnCode, from: returnBase))
                }
            }
        }
    }

    /// Writes one argument into its slot, as the C type its case names.
    @inline(__always)
    private static func store(_ argument: FFIScalar, at slot: UnsafeMutableRawPointer) {
        switch argument {
        case .void: break
        case .bool(let value): slot.storeBytes(of: value ? 1 : 0, as: UInt8.self)
        case .int32(let value): slot.storeBytes(of: value, as: Int32.self)
        case .int64(let value): slot.storeBytes(of: value, as: Int64.self)
        case .double(let value): slot.storeBytes(of: value, as: Double.self)
        case .float(let value): slot.storeBytes(of: value, as: Float.self)
        case .pointer(let value): slot.storeBytes(of: value, as: UnsafeMutableRawPointer?.self)
        }
    }

    /// Reads a return value. Integer types narrower than `ffi_arg` come back widened to a
    /// full `ffi_arg`, so they are read as one and truncated.
    @inline(__always)
    private static func loadReturn(_ code: FFICode, from buffer: UnsafeMutableRawPointer) -> FFIScalar {
        switch code {
        case .void: return .void
        case .bool: return .bool(UInt8(truncatingIfNeeded: buffer.load(as: UInt64.self)) != 0)
        case .int32: return .int32(Int32(truncatingIfNeeded: buffer.load(as: Int64.self)))
        case .int64: return .int64(buffer.load(as: Int64.self))
        case .double: return .double(buffer.load(as: Double.self))
        case .float: return .float(buffer.load(as: Float.self))
        case .string, .pointer, .value: return .pointer(buffer.load(as: UnsafeMutableRawPointer?.self))
        }
    }

    /// Reads argument `index` of a closure call (`args[index]` points at a value of the
    /// parameter's C type).
    @inline(__always)
    static func loadArgument(_ code: FFICode, from pointer: UnsafeRawPointer) -> FFIScalar {
        switch code {
        case .void: return .void
        case .bool: return .bool(pointer.load(as: UInt8.self) != 0)
        case .int32: return .int32(pointer.load(as: Int32.self))
        case .int64: return .int64(pointer.load(as: Int64.self))
        case .double: return .double(pointer.load(as: Double.self))
        case .float: return .float(pointer.load(as: Float.self))
        case .string, .pointer, .value: return .pointer(pointer.load(as: UnsafeMutableRawPointer?.self))
        }
    }
}
