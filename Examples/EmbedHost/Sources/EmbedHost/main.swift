// The README's "Embedding the host library" example, made runnable: discover and probe the
// backends, run one graph on the best accepted unit, on a forced unit and on the reference
// interpreter, and check the three give the same integers.
import Foundation
import WaiHost

func exampleGraph() throws -> IntegerGraph {
    var b = GraphBuilder()
    let x = b.input("x", Shape(4, 8, 8), storage: .narrow, interval: Interval(lo: -255, hi: 255))
    let weights: [Int16] = (0..<600).map { (i: Int) -> Int16 in Int16((i * 7919) % 15 - 7) }
    let y = try b.convTranspose2d(x, ConvParams(kernelH: 5, kernelW: 5, stride: 2, pad: 2, outputPad: 1,
                                                 weights: weights, bias: [1, -2, 3, -4, 5, -6]))
    let q = try b.requantize(y, RequantizeParams(multiplier: Array(repeating: 3, count: 6),
                                                 shift: Array(repeating: 6, count: 6), lo: 0, hi: 255))
    return try b.build(outputs: [q])
}

do {
    let host = BackendHost()
    // Every plugin runs in a waihost-unit-worker process, found beside this program (or
    // WAIHOST_UNIT_WORKER); without one every unit is failed, and this example fails too.
    guard let worker = host.configuration.unitWorkerExecutable else {
        print("error: no waihost-unit-worker beside \(CommandLine.arguments[0]) and WAIHOST_UNIT_WORKER is unset")
        exit(1)
    }
    print("unit worker:", worker)
    let probe = try host.probe()
    guard !probe.accepted.isEmpty else {
        print("error: no unit was accepted: " + probe.units.map { "\($0.selector) \($0.state.rawValue): \($0.reason)" }.joined(separator: "; "))
        exit(1)
    }
    for u in probe.units {
        print("\(u.backend) \(u.device) \(u.unit) \(u.state.rawValue) rank=\(u.rank.map(String.init) ?? "-") \(u.reason)")
    }
    let graph = try exampleGraph()
    let shape = graph.tensors[graph.inputs[0]].shape
    let values: [Int32] = (0..<shape.count).map { (i: Int) -> Int32 in Int32((i * 37) % 511 - 255) }
    let input = TensorValue(shape: shape, values: values)

    let (best, report) = try host.run(graph, inputs: [input], on: .best)
    print("best:", report.unit, report.backend, report.device, report.dispatch, "-", report.reason)
    let (forced, forcedReport) = try host.run(graph, inputs: [input], on: .kind(.cpu))
    print("forced:", forcedReport.unit, forcedReport.backend, forcedReport.dispatch)
    let (reference, _) = try host.run(graph, inputs: [input], on: .reference)
    guard best == reference, forced == reference else {
        print("error: outputs differ between units")
        exit(1)
    }
    print("identical outputs on every unit: \(reference[0].values.count) values")
} catch {
    print("error: \(error)")
    exit(1)
}
