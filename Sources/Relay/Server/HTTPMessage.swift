// The request and response values the relay's handlers see; libmicrohttpd parses the wire.

/// One request as libmicrohttpd parsed it.
public struct HTTPRequest: Sendable {
    /// "GET", "HEAD", "OPTIONS", ...
    public var method: String
    /// The path, without the query (libmicrohttpd splits the query off).
    public var path: String
    /// Header names lowercased; a repeated header keeps its last value.
    public var headers: [String: String]
    /// Query arguments (names as sent), percent-decoded by libmicrohttpd; a repeated name keeps its last value.
    public var query: [String: String]
    /// The request body; empty unless the server was started with a body limit above zero.
    public var body: [UInt8]

    public init(method: String, path: String, headers: [String: String],
                query: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.headers = headers
        self.query = query
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// One response. The body is a slice so a range of a cached object needs no copy of its own
/// before libmicrohttpd copies it out.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: ArraySlice<UInt8>

    public init(status: Int, headers: [(String, String)] = [], body: ArraySlice<UInt8> = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.last(where: { $0.0.lowercased() == name.lowercased() })?.1
    }
}
