/// A test's own failure that is not an assertion: a fixture that could not be set up, a
/// program that printed no URL. Says what went wrong in its words.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
    public init(description: String) { self.description = description }
}
