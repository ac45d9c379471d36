// Group commit: concurrent callers queue their jobs; whichever finds no transaction running
// takes everything queued and runs it as one transaction, then hands every caller its result.
// With synchronous=FULL a commit costs an fsync, so one fsync per batch instead of per bundle
// is what lets the collector acknowledge thousands of bundles a second.
#if canImport(Glibc)
import Glibc
#endif

final class GroupCommit<Job, Outcome>: @unchecked Sendable {
    private final class Ticket {
        let job: Job
        var result: Result<Outcome, Error>?
        init(_ job: Job) { self.job = job }
    }

    private var mutex = pthread_mutex_t()
    private var done = pthread_cond_t()
    private var queue: [Ticket] = []
    private var leading = false
    private let maxBatch: Int
    /// Runs one batch as one transaction; one result per job, in order. Never called twice at once.
    private let runBatch: ([Job]) -> [Result<Outcome, Error>]

    init(maxBatch: Int, runBatch: @escaping ([Job]) -> [Result<Outcome, Error>]) {
        self.maxBatch = maxBatch
        self.runBatch = runBatch
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&done, nil)
    }

    deinit {
        pthread_cond_destroy(&done)
        pthread_mutex_destroy(&mutex)
    }

    func submit(_ job: Job) throws -> Outcome {
        let ticket = Ticket(job)
        pthread_mutex_lock(&mutex)
        queue.append(ticket)
        while ticket.result == nil {
            if leading {
                pthread_cond_wait(&done, &mutex)
                continue
            }
            leading = true
            let batch = Array(queue.prefix(maxBatch))
            queue.removeFirst(batch.count)
            pthread_mutex_unlock(&mutex)
            let results = runBatch(batch.map { $0.job })
            pthread_mutex_lock(&mutex)
            for (i, t) in batch.enumerated() {
                t.result = i < results.count ? results[i]
                    : .failure(StoreError.corrupt(what: "batch result (\(results.count) for \(batch.count) jobs)"))
            }
            leading = false
            pthread_cond_broadcast(&done)
        }
        pthread_mutex_unlock(&mutex)
        guard let result = ticket.result else { throw StoreError.corrupt(what: "batch result") }
        return try result.get()
    }
}

/// What a store's batch runs: a bundle or a group of CMCD reports.
enum StoreJob {
    case bundle(BundleSubmission)
    case cmcd([CMCDReport])
}

enum StoreJobOutcome {
    case bundle(BundleInsertOutcome)
    case cmcd([CMCDInsertOutcome])
}
