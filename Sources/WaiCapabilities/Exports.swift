// The codecs run their graphs through the host (HostGraphRunner) and code with WaiEntropy.
@_exported import WaiRuntime
@_exported import WaiEntropy
