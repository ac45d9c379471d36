// Hex was this module's before WaiSupport held it; its users still find it here.
@_exported import WaiSupport
