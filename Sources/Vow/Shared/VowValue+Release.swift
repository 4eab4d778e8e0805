#if canImport(Glibc)
import Glibc
#endif

/// Frees nested values with a loop instead of a recursion.
///
/// A LIST holds values, a PROMISE value holds a promise that may be fulfilled with a
/// PROMISE value, an ERROR value holds an error whose payload may be an ERROR value: a C
/// program (or `vow_when` over `vow_when` results) can nest them a million levels deep.
/// Released the plain way, each level's `deinit` would release the next level from inside
/// itself, one stack frame group per level, and overflow the stack.
///
/// Instead a value's `deinit` hands its content to `dispose(_:)`, which drops it through
/// this thread's `FlatRelease` (the engine's loop that frees handler lists the same way):
/// the stack stays flat and everything is freed, in no particular order, on the thread
/// that dropped the last reference (where a POINTER's or THENABLE's destroy then runs, as
/// the header says).
///
/// The state is per thread (a `ThreadSlot`, like the engine's `ThreadState`), touched only
/// by its own thread; it costs one lookup per LIST, PROMISE or ERROR value freed.
enum NestedRelease {
    /// Takes `content` (leaving `.null`) and drops it, and everything it frees, without
    /// recursion.
    static func dispose(_ content: inout VowValue.Content) {
        var taken = VowValue.Content.null
        swap(&taken, &content)
        // Consumed: a copy left in `taken` would be freed after the drain, recursing.
        nestedReleaseSlot.object { FlatRelease<VowValue.Content>() }.takeUnretainedValue().drop(consume taken)
    }
}

/// Each thread's `FlatRelease` of value contents, freed when the thread ends.
private let nestedReleaseSlot = ThreadSlot()

extension VowValue {
    /// True if this value holds `target`: as a PROMISE value, inside a LIST, in an ERROR
    /// value's payload, or inside the value (or rejection payload) of a settled promise it
    /// holds, at any depth. Fulfilling `target` with such a value would make a cycle (the
    /// promise holds the value, the value holds the promise) that is never freed, so the
    /// resolvers reject it with the cycle error instead.
    ///
    /// A loop over an explicit stack, each value and promise visited once; nothing to do
    /// for scalars. A walk that meets no pending promise marks the value
    /// `reachesOnlySettled` (what is settled never changes), so fulfilling promise after
    /// promise with values that hold the previous one costs one step each, not a walk
    /// down the whole nest.
    @inline(__always)
    func reaches(_ target: Core) -> Bool {
        guard mayHoldPromises, !reachesOnlySettled.load(ordering: .relaxed) else { return false }
        return walkReaches(target)
    }

    /// The walk of `reaches(_:)`, for a value that may hold promises.
    @inline(never)
    private func walkReaches(_ target: Core) -> Bool {
        var stack: [VowValue] = [self]
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(self)]
        var metPending = false
        func visit(_ value: VowValue?) {
            guard let value, !value.reachesOnlySettled.load(ordering: .relaxed),
                  seen.insert(ObjectIdentifier(value)).inserted else { return }
            stack.append(value)
        }
        while let value = stack.popLast() {
            switch value.content {
            case .list(let items):
                for item in items {
                    switch item.content {
                    case .list, .promise, .error: visit(item)
                    default: break
                    }
                }
            case .promise(let core):
                if core === target { return true }
                guard seen.insert(ObjectIdentifier(core)).inserted else { continue }
                if core.isPending {
                    metPending = true
                } else if let held = core.heldObject(VowValue.self) {
                    visit(held.takeUnretainedValue())
                } else if core.isRejected, let box = core.error as? VowErrorBox {
                    visit(box.payload)
                }
            case .error(let box):
                visit(box.payload)
            default:
                break
            }
        }
        if !metPending { reachesOnlySettled.store(true, ordering: .relaxed) }
        return false
    }
}
