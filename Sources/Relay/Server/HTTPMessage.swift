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

/// One response. The body is a slice, or a range of shared bytes (a verified object), so a
/// range of a cached object needs no copy of its own: libmicrohttpd sends from it in place.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: ArraySlice<UInt8>
    /// When set, the body sent instead of `body`.
    public var shared: SharedBody?

    public struct SharedBody: Sendable {
        public var bytes: SharedBytes
        public var range: Range<Int>
        public init(_ bytes: SharedBytes, range: Range<Int>? = nil) {
            self.bytes = bytes
            self.range = range ?? 0..<bytes.count
        }
    }

    public init(status: Int, headers: [(String, String)] = [], body: ArraySlice<UInt8> = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, headers: [(String, String)] = [], shared: SharedBody) {
        self.init(status: status, headers: headers)
        self.shared = shared
    }

    /// The body's length in bytes, whichever form it has.
    public var bodyCount: Int { shared?.range.count ?? body.count }

    public func header(_ name: String) -> String? {
        headers.last(where: { $0.0.lowercased() == name.lowercased() })?.1
    }
}
