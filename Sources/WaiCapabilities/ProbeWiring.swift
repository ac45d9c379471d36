// What ties the codecs into the host without the host importing them (docs/architecture.md,
// "Modules"): the probe's decode stage runs the codecs' decode vectors on every host made here.

extension IntHyperProbeVector {
    /// int_cond's P-frame (cond_context, cond_prior, cond_synth), int_motion's P-frame (both
    /// h_s, then p_synth), then int_hyper's h_s and g_s; the repetition stage runs p_synth and
    /// g_s again.
    public static let probeVectors = CodecProbeVectors {
        let cond = try IntCondProbeVector.shared().graphs.map { ProbeCase(name: $0.name, graph: $0.graph, inputs: $0.inputs) }
        let motion = try IntMotionProbeVector.shared().graphs.map {
            ProbeCase(name: $0.name, graph: $0.graph, inputs: $0.inputs, repeated: $0.name == "int_motion_p_synth")
        }
        return cond + motion + (try shared().graphs.map {
            ProbeCase(name: $0.name, graph: $0.graph, inputs: $0.inputs, repeated: $0.name == "int_hyper_g_s")
        })
    }
}

extension BackendHost {
    /// A host whose probe decodes int_hyper payloads in its decode stage.
    public convenience init(configuration: HostConfiguration = .fromEnvironment()) {
        self.init(configuration: configuration, codecProbeVectors: IntHyperProbeVector.probeVectors)
    }
}

extension ProbeSuite {
    /// The graphs of one stage, int_hyper's decode vector in the decode stage.
    public static func cases(_ stage: ProbeStage) throws -> [ProbeCase] {
        try cases(stage, codecVectors: IntHyperProbeVector.probeVectors)
    }
}

extension ProbeDump {
    /// The probe case a mismatch came from, int_hyper's decode vector among the suite's.
    public static func probeCase(for m: ProbeMismatch) throws -> ProbeCase? {
        try probeCase(for: m, codecVectors: IntHyperProbeVector.probeVectors)
    }
}
