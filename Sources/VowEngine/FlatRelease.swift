/// Drops items that may free more items of the same kind, with a loop instead of a
/// recursion: one per thread (kept in a `ThreadSlot` or the thread's `ThreadState`), touched
/// only by its own thread.
///
/// Released the plain way, an item whose last reference frees the next one from inside its
/// `deinit` would take one stack frame group per level, and a long nest would overflow the
/// stack. Here the outermost `drop(_:)` on a thread drains a list in a loop: dropping one
/// item may run deinits that call `drop` again, which only appends to the list (the thread
/// is already draining) and returns. So the stack stays flat and everything is freed, in
/// no particular order, on the thread that dropped the last reference.
@usableFromInline package final class FlatRelease<Item> {
    // Unchecked exclusivity: only the owning thread touches these, and a re-entrant `drop`
    // (from a deinit in the loop) runs while no access to them is open.
    /// True while this thread's outermost `drop` drains `pending`.
    @exclusivity(unchecked) @usableFromInline var draining = false
    /// Items waiting to be dropped by the draining loop.
    @exclusivity(unchecked) @usableFromInline var pending: [Item] = []

    @inlinable package init() {}

    /// Drops `item`, and everything it frees, without recursion.
    @inlinable
    package func drop(_ item: consuming Item) {
        if draining {
            pending.append(consume item)
            return
        }
        draining = true
        var batch = [consume item]  // no copy left here to be freed after the loop
        while !batch.isEmpty {
            batch.removeAll()  // runs deinits that append to `pending`
            swap(&batch, &pending)
        }
        draining = false
    }
}
