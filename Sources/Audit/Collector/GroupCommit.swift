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

extension GroupCommit where Job == StoreJob, Outcome == StoreJobOutcome {
    func insertBundle(_ bundle: BundleSubmission) throws -> BundleInsertOutcome {
        guard case .bundle(let o) = try submit(.bundle(bundle)) else { throw StoreError.corrupt(what: "batch outcome") }
        return o
    }

    func insertCMCD(_ reports: [CMCDReport]) throws -> [CMCDInsertOutcome] {
        guard case .cmcd(let o) = try submit(.cmcd(reports)) else { throw StoreError.corrupt(what: "batch outcome") }
        return o
    }
}

/// One transaction around a whole batch, so one durable commit (one fsync) answers every job
/// in it, and a savepoint per job, so one job's failure does not undo the others' inserts.
/// Both stores use this; only the statement that opens the transaction differs.
func runBatchTransaction(_ jobs: [StoreJob], begin: String, exec: (String) throws -> Void,
                         run: (StoreJob) throws -> StoreJobOutcome) -> [Result<StoreJobOutcome, Error>] {
    do {
        try exec(begin)
    } catch {
        return jobs.map { _ in .failure(error) }
    }
    var results: [Result<StoreJobOutcome, Error>] = []
    for job in jobs {
        do {
            try exec("SAVEPOINT job")
            let outcome = try run(job)
            try exec("RELEASE SAVEPOINT job")
            results.append(.success(outcome))
        } catch {
            try? exec("ROLLBACK TO SAVEPOINT job")
            try? exec("RELEASE SAVEPOINT job")
            results.append(.failure(error))
        }
    }
    do {
        try exec("COMMIT")
    } catch {
        try? exec("ROLLBACK")
        return jobs.map { _ in .failure(error) }
    }
    return results
}
