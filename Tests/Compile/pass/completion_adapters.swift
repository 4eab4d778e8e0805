// Issue 12, section 2: a resolver's method is a completion handler, for both shapes of
// completion-handler API (the snippets are checked with -warnings-as-errors).
import Vow

struct Reply: Sendable { let code: Int }

func legacyFetch(completion: @escaping @Sendable (Reply?, (any Error)?) -> Void) {
    completion(Reply(code: 1), nil)
}

func modernFetch(completion: @escaping @Sendable (Result<Reply, any Error>) -> Void) {
    completion(.success(Reply(code: 2)))
}

func nonEscapingFetch(completion: (Reply?, (any Error)?) -> Void) {
    completion(nil, nil)
}

func both() -> [Promise<Reply>] {
    [
        Promise { seal in legacyFetch(completion: seal.resolve) },
        Promise { seal in modernFetch(completion: seal.resolve) },
        Promise { seal in nonEscapingFetch(completion: seal.resolve) },
        Promise(lazy: { seal in legacyFetch(completion: seal.resolve) }),
    ]
}

// The other helpers, as a migrating program writes them.
func helpers(_ maybe: Promise<Reply?>) -> Promise<Int> {
    maybe.unwrap(orReject: VowError(.type, "no reply"))
        .validate { $0.code > 0 }
        .delay(seconds: 0.1)
        .map { $0.code }
}

func retried() -> Promise<Int> {
    retry(times: 3, delay: 0.5, if: { !isCancellation($0) }) { Promise.value(1) }
}
