// SHA256 and the other crypto helpers are part of this library's API (model integrity,
// plugin hashes); they live in WaiCrypto so the relay shares them.
@_exported import WaiCrypto
// Locks, clocks, hex and JSON coding: one implementation for every module.
@_exported import WaiSupport
