import WorkerIPC
#if canImport(Glibc)
import Glibc
#endif

/// The tensors of one prepared graph, in one memfd mapped by the host and by its worker:
/// the host writes a run's inputs here and reads the outputs back, the plugin reads and
/// writes them in place, and nothing crosses the channel but the request to run.
/// Regions are int32 arrays, each 64-byte aligned, inputs first, then outputs.
final class SharedArena: @unchecked Sendable {
    struct Region: Equatable { var offset: Int; var count: Int }

    let base: UnsafeMutableRawPointer
    let size: Int
    let regions: [Region]
    /// The memfd, until it was handed to the worker (`closeDescriptor`).
    private(set) var fd: Int32

    static let alignment = 64

    static func layout(_ counts: [Int]) -> (regions: [Region], size: Int) {
        var offset = 0
        var regions: [Region] = []
        for c in counts {
            regions.append(Region(offset: offset, count: c))
            offset += (c * 4 + alignment - 1) / alignment * alignment
        }
        return (regions, max(offset, alignment))
    }

    init(counts: [Int]) throws {
        let (regions, size) = Self.layout(counts)
        let fd = wipc_memfd("waihost-tensors", size)
        guard fd >= 0 else {
            throw WorkerError.refused("cannot create \(size) bytes of shared tensor memory: \(UnitWorkerProcess.errorText(fd))")
        }
        guard let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw WorkerError.refused("cannot map \(size) bytes of shared tensor memory: \(why)")
        }
        self.base = p; self.size = size; self.regions = regions; self.fd = fd
    }

    /// Maps an arena the host created (worker side), after checking that every region
    /// lies inside the file.
    init(mapping fd: Int32, regions: [Region]) throws {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw WorkerError.refused("fstat of the tensor memory: \(String(cString: strerror(errno)))") }
        let size = Int(st.st_size)
        for (k, r) in regions.enumerated() {
            let (bytes, o1) = r.count.multipliedReportingOverflow(by: 4)
            let (end, o2) = r.offset.addingReportingOverflow(bytes)
            guard r.offset >= 0, r.count >= 0, !o1, !o2, end <= size, r.offset % 4 == 0 else {
                throw WorkerError.refused("tensor region \(k) (offset \(r.offset), \(r.count) values) is outside the \(size)-byte tensor memory")
            }
        }
        guard size > 0, let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw WorkerError.refused("cannot map the \(size)-byte tensor memory: \(String(cString: strerror(errno)))")
        }
        self.base = p; self.size = size; self.regions = regions; self.fd = fd
    }

    deinit {
        munmap(base, size)
        if fd >= 0 { close(fd) }
    }

    func closeDescriptor() {
        if fd >= 0 { close(fd); fd = -1 }
    }

    func buffer(_ k: Int) -> UnsafeMutableBufferPointer<Int32> {
        let r = regions[k]
        return UnsafeMutableBufferPointer(start: (base + r.offset).assumingMemoryBound(to: Int32.self), count: r.count)
    }
}
