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
    /// Signalled when what a gathering leader waits for is there: no announced job left on its
    /// way, or a full batch. Not on every arrival: each wake of the leader is a futex call and
    /// two context switches, and it would only wait again.
    private var arrived = pthread_cond_t()
    private var queue: [Ticket] = []
    private var leading = false
    /// Jobs announced (their request is being verified) and not yet queued or withdrawn.
    private var incoming = 0
    private let maxBatch: Int
    /// How long a leader waits for announced jobs to join its batch. Verifying a bundle takes
    /// about half a millisecond of CPU, so requests in flight when a batch starts join within
    /// this and share its fsync, instead of each starting the next (docs/collector.md).
    static var gatherWindowNanoseconds: Int { 1_000_000 }
    /// Runs one batch as one transaction; one result per job, in order. Never called twice at once.
    private let runBatch: ([Job]) -> [Result<Outcome, Error>]

    init(maxBatch: Int, runBatch: @escaping ([Job]) -> [Result<Outcome, Error>]) {
        self.maxBatch = maxBatch
        self.runBatch = runBatch
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&done, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(&arrived, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(&arrived)
        pthread_cond_destroy(&done)
        pthread_mutex_destroy(&mutex)
    }

    /// A job is coming (its request is being verified): a leader starting a batch now waits a
    /// little for it. Each announce is ended by one `submit(_:announced: true)` or one `withdraw()`.
    func announce() {
        pthread_mutex_lock(&mutex)
        incoming += 1
        pthread_mutex_unlock(&mutex)
    }

    /// The announced job will not come (its request was refused).
    func withdraw() {
        pthread_mutex_lock(&mutex)
        incoming -= 1
        signalGatheringLeader()
        pthread_mutex_unlock(&mutex)
    }

    func submit(_ job: Job, announced: Bool = false) throws -> Outcome {
        let ticket = Ticket(job)
        pthread_mutex_lock(&mutex)
        if announced { incoming -= 1 }
        queue.append(ticket)
        signalGatheringLeader()
        while ticket.result == nil {
            if leading {
                pthread_cond_wait(&done, &mutex)
                continue
            }
            leading = true
            gather()
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

    /// With the mutex held: wakes a leader in `gather` when its wait is over.
    private func signalGatheringLeader() {
        if incoming == 0 || queue.count >= maxBatch { pthread_cond_signal(&arrived) }
    }

    /// With the mutex held, as leader: waits up to the gather window while announced jobs are
    /// still on their way and the batch has room.
    private func gather() {
        guard incoming > 0, queue.count < maxBatch else { return }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let ns = deadline.tv_nsec + Self.gatherWindowNanoseconds
        deadline.tv_sec += ns / 1_000_000_000
        deadline.tv_nsec = ns % 1_000_000_000
        while incoming > 0, queue.count < maxBatch {
            if pthread_cond_timedwait(&arrived, &mutex, &deadline) == ETIMEDOUT { return }
        }
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
    func insertBundle(_ bundle: BundleSubmission, announced: Bool = false) throws -> BundleInsertOutcome {
        guard case .bundle(let o) = try submit(.bundle(bundle), announced: announced) else {
            throw StoreError.corrupt(what: "batch outcome")
        }
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
