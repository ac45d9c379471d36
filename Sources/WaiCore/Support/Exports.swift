// Every file of the layer (and every layer above) sees the locks, clocks, hex, JSON coding
// and SHA-256 without importing them one by one.
@_exported import WaiSupport
@_exported import WaiCrypto
// The op table is part of the graph IR's API (`Op.kind`).
@_exported import WaiOps
