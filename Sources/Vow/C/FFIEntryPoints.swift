import CVow

// libffi (vow.h, "libffi: calling and making C functions at run time"): `vow_then_call`
// spreads a promise's value into a C function's parameters (Sources/Vow/FFI/ForeignCall.swift),
// a `vow_trampoline *` is a `Trampoline` (Sources/Vow/FFI/Trampoline.swift).
//
// Signatures are untrusted input: they are parsed with a bounded scan before anything
// else, and a malformed one makes the call fail (NULL, `destroy` run) with one line on
// standard error naming the function, the signature and the problem.

// Both `vow_then_call` functions are written once, as `func NAME(<its C parameters>,
// at site:)` with the site to record in debug mode; their C entry points NAME and
// NAME_site are generated from the header's table `VOW_PROMISE_MAKERS` into
// CPromiseMakers.swift.

@inline(__always)
func vow_then_call(_ p: OpaquePointer?, _ signature: UnsafePointer<CChar>?, _ fn: vow_fnptr?,
                   _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    cThenCall(.plain, p, signature, fn, CContext(ctx, destroy), in: "vow_then_call", at: site)
}

@inline(__always)
func vow_then_call_on(_ d: OpaquePointer?, _ p: OpaquePointer?, _ signature: UnsafePointer<CChar>?,
                      _ fn: vow_fnptr?, _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?,
                      at site: Site) -> OpaquePointer? {
    cThenCall(.on(d), p, signature, fn, CContext(ctx, destroy), in: "vow_then_call_on", at: site)
}

/// Both `vow_then_call` functions: check the dispatcher, parse, check, register. Returns
/// the derived promise (+1), or nil; on nil, `destroy` has run before the entry point
/// returns.
private func cThenCall(_ d: CDispatcherArgument, _ p: OpaquePointer?,
               _ signature: UnsafePointer<CChar>?, _ fn: vow_fnptr?, _ context: consuming CContext,
               in function: StaticString, at site: Site) -> OpaquePointer? {
    var context = context
    guard let dispatcher = d.dispatcher(in: function), let signature else {
        context.destroyNow()
        return nil
    }
    let call: ForeignCall
    switch ForeignCall.make(cString: signature, function: fn ?? placeholderFunction, origin: function) {
    case .failure(let error):
        reportBadSignature(signature, error.message, in: function)
        context.destroyNow()
        return nil
    case .success(let made):
        call = made
    }
    guard fn != nil, let source = handle(p, as: Core.self, in: function) else {
        context.destroyNow()
        return nil
    }
    return source.link(on: dispatcher, ForeignCallBody(call: call, context: context), at: site).retainedHandle
}

/// Stands in for a NULL `fn` while the signature is checked (never called).
private let placeholderFunction: ForeignCall.Function = {}

@c @implementation
func vowface_trampoline_new(_ signature: UnsafePointer<CChar>?,
                               _ promise_out: UnsafeMutablePointer<OpaquePointer?>?) -> OpaquePointer? {
    promise_out?.pointee = nil
    guard let signature, let promise_out else { return nil }
    let parsed: Signature
    do {
        parsed = try Signature(parsingCString: signature)
    } catch {
        reportBadSignature(signature, error.message, in: "vow_trampoline_new")
        return nil
    }
    guard parsed.returnCode == .void else {
        writeDiagnostic("vow: vow_trampoline_new: signature \(SignatureError.quoted(cString: signature)): "
                        + "the return code must be 'v' (a trampoline returns nothing), found '\(parsed.returnCode.letter)'")
        return nil
    }
    let core = Core()
    let codes = parsed.parameters
    let made = Trampoline(parsed, receiver: { arguments in
        // On the calling thread, before the call returns: strings are copied, values
        // retained, so nothing the caller owns is kept.
        var items: [VowValue] = []
        items.reserveCapacity(codes.count)
        for (code, scalar) in zip(codes, arguments) {
            switch FFIValues.argumentValue(scalar, for: code, in: "vow_trampoline") {
            case .success(let item):
                items.append(item)
            case .failure(let error):
                core.reject(error)
                return
            }
        }
        core.fulfil(VowValue(.list(items)))
    }, unused: {
        core.breakIfResolverUnused()
    })
    guard let trampoline = made else {
        writeDiagnostic("vow: vow_trampoline_new: libffi could not make a closure (out of memory?)")
        return nil
    }
    promise_out.pointee = core.retainedHandle
    return trampoline.retainedHandle
}

@c @implementation
func vowface_trampoline_function(_ t: OpaquePointer?) -> vow_fnptr? {
    guard let trampoline = handle(t, .trampoline, as: Trampoline.self, in: "vow_trampoline_function") else {
        return nil
    }
    return unsafeBitCast(trampoline.function, to: vow_fnptr.self)
}

@c @implementation
func vowface_trampoline_release(_ t: OpaquePointer?) {
    releaseHandle(t, .trampoline, in: "vow_trampoline_release")
}

/// One line on standard error: `vow: vow_then_call: malformed signature "q(x)": unknown
/// type code 'x' at offset 2 (...)`. The signature is quoted with the same bounded scan
/// as the parser (non-printable bytes escaped, long ones cut).
private func reportBadSignature(_ signature: UnsafePointer<CChar>, _ problem: String, in function: StaticString) {
    writeDiagnostic("vow: \(function): malformed signature \(SignatureError.quoted(cString: signature)): \(problem)")
}
