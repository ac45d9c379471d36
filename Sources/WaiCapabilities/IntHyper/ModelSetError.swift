/// A model set that cannot be used: names the file, where in it (a JSON path such as
/// `$.y_tables[3].cdf`, a tensor, a field) and what is wrong.
public struct ModelSetError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var location: String?
    public var problem: String

    public init(file: String, location: String? = nil, problem: String) {
        self.file = file; self.location = location; self.problem = problem
    }

    public var description: String {
        "model set: \(file)\(location.map { " at \($0)" } ?? ""): \(problem)"
    }
}
