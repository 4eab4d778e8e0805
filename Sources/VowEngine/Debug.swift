/// Where a promise was made (debug mode). Kept in the promise's extras.
@usableFromInline package final class DebugRecord: Sendable {
    /// The file and line of the call that made the promise ("C" when a C program did not
    /// pass its site).
    @usableFromInline package let site: String
    /// The site of the first promise of the chain this promise belongs to (nil: it is the
    /// first).
    @usableFromInline package let chainSite: String?

    @usableFromInline package init(site: String, chainSite: String?) {
        self.site = site
        self.chainSite = chainSite
    }

    /// "dropped at SITE, chain began at SITE" for the unhandled-error line.
    @usableFromInline package var reportSites: String {
        "dropped at \(site), chain began at \(chainSite ?? site)"
    }

    /// " (made at SITE)" for a message about `promise`, or "" when it has no record.
    @usableFromInline package static func siteSuffix(of promise: Core) -> String {
        guard let record = promise.debugRecord else { return "" }
        return " (promise made at \(record.site))"
    }
}

extension Core {
    /// The debug record, if this promise has one.
    @usableFromInline package final var debugRecord: DebugRecord? {
        guard flags.contains(.debugged) else { return nil }
        let flags = lock()
        let record = back.existingExtras?.debug
        unlock(flags)
        return record
    }
}
