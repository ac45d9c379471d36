// The entropy coder and the envelope sit on the graph layer (its bounded parallel map).
@_exported import WaiCore
