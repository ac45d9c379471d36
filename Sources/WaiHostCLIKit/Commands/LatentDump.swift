import WaiHost
#if canImport(Glibc)
import Glibc
#endif

/// `waihost decode --latents DIR` (docs/capabilities/int_hyper.md §8.1): what a picture's
/// decode fed its graphs and its entropy decoder — z, y and y's scale indices — as raw
/// little-endian int32 files and a `latents.json` naming their shapes, so that a codec
/// developer can look at a real payload's latents (numpy, the entropy benchmark) without
/// writing a decoder of their own.
struct LatentDump: Encodable {
    struct Entry: Encodable {
        var name: String
        var file: String
        /// Always `int32le`: the one element type, named so that a reader need not assume it.
        var element = "int32le"
        /// [channels, height, width]; the file holds channels × height × width elements.
        var shape: [Int]
    }

    var capability = IntHyperModelSet.capability
    var modelSet: IntHyperDecodeReport.ModelSetInfo
    var width: Int
    var height: Int
    var payloadVersion: Int
    var arrays: [Entry]

    enum CodingKeys: String, CodingKey {
        case capability, modelSet = "model_set", width, height, payloadVersion = "payload_version", arrays
    }

    static let descriptionFile = "latents.json"

    /// Before the decode: `folder` is a folder this user can write in, or can be made as one.
    static func check(_ folder: String) throws {
        if LocalFile.isDirectory(folder) {
            try LocalFile.checkWritable(folder + "/" + descriptionFile)
        } else if LocalFile.exists(folder) {
            throw FileError(path: folder, problem: "is a file, not a folder")
        } else {
            try LocalFile.checkWritable(folder)
        }
    }

    /// Writes the three arrays, then `latents.json` last, each whole or not at all
    /// (LocalFile.write), so a `latents.json` always describes files that are complete.
    static func write(_ d: IntHyperCodec.Decoded, report: IntHyperDecodeReport, to folder: String) throws {
        guard let scales = d.result.scaleIndices else {
            throw CLIError(.failure, "\(folder): the decode did not keep y's scale indices")
        }
        if !LocalFile.isDirectory(folder), mkdir(folder, 0o755) != 0 {
            throw FileError(path: folder, problem: "cannot create folder: \(String(cString: strerror(errno)))")
        }
        let (z, y) = (d.result.z, d.result.y)
        let arrays: [(Entry, [Int32])] = [
            (Entry(name: "z", file: "z.i32", shape: z.shape.dimensions), z.values),
            (Entry(name: "y", file: "y.i32", shape: y.shape.dimensions), y.values),
            (Entry(name: "y_scale_index", file: "y_scale_index.i32", shape: y.shape.dimensions), scales),
        ]
        for (a, values) in arrays {
            try LocalFile.write(Int32LE.bytes(values), to: folder + "/" + a.file)
        }
        let dump = LatentDump(modelSet: report.modelSet, width: report.width, height: report.height,
                              payloadVersion: Int(d.payload.version.rawValue), arrays: arrays.map(\.0))
        try LocalFile.write(Array((try JSON.report(dump, schema: .latents) + "\n").utf8), to: folder + "/" + descriptionFile)
    }
}

extension Shape {
    /// [channels, height, width], as array libraries spell a shape.
    var dimensions: [Int] { [channels, height, width] }
}
