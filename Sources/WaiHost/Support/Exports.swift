// `import WaiHost` is every layer of the library (docs/architecture.md, "Modules"): the
// programs, the C API and the tests import it; the layers below name only what they use.
@_exported import WaiSupport
@_exported import WaiCrypto
@_exported import WaiOps
@_exported import WaiCore
@_exported import WaiEntropy
@_exported import WaiRuntime
@_exported import WaiCapabilities
