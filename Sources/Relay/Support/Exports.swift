// Keys, hashes and hex appear in the relay's API (receipts, content addresses); they live in
// WaiCrypto so the host library shares them.
@_exported import WaiCrypto
