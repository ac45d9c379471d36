// The host runs WaiCore's graphs on plugin units; it knows no codec (docs/architecture.md).
@_exported import WaiCore
