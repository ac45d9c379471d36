// SHA256 and the other crypto helpers are part of this library's API (model integrity,
// plugin hashes); they live in WaiCrypto so the relay shares them.
@_exported import WaiCrypto
