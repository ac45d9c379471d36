// The configuration file `waihost.conf` (docs/configuration.md §2): `key = value` lines, a
// subset of TOML. Parsing checks every value, so a bad line is refused with its file and
// line, never half-applied.
#if canImport(Glibc)
import Glibc
#endif

/// The keys a configuration file may set (docs/configuration.md §3).
public enum ConfigKey: String, CaseIterable, Sendable {
    case unit
    case hide
    case visible
    case spotCheck = "spot_check"
    case pluginPath = "plugin_path"
    case probeTimeout = "probe_timeout"
    case probePrepareTimeout = "probe_prepare_timeout"
    case runTimeout = "run_timeout"
}

/// What is wrong with a configuration, and where: `FILE:LINE` for a file, the variable's
/// name for the environment.
public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `/etc/waihost/waihost.conf:3`, or `WAIHOST_UNIT`.
    public var location: String
    public var reason: String
    public init(location: String, reason: String) { self.location = location; self.reason = reason }
    public var description: String { "\(location): \(reason)" }
}

/// One layer of settings (a file, or the environment); nil: that layer does not set it.
public struct ConfigLayer: Equatable, Sendable {
    public var unit: UnitSelection?
    public var hide: [UnitSelection]?
    public var visible: [UnitSelection]?
    public var spotCheck: SpotCheckPolicy?
    public var pluginPath: [String]?
    public var probeTimeout: Double?
    public var probePrepareTimeout: Double?
    public var runTimeout: Double?

    public init() {}

    /// This layer with every setting `over` makes replacing this one's.
    public func overridden(by over: ConfigLayer) -> ConfigLayer {
        var r = self
        if let v = over.unit { r.unit = v }
        if let v = over.hide { r.hide = v }
        if let v = over.visible { r.visible = v }
        if let v = over.spotCheck { r.spotCheck = v }
        if let v = over.pluginPath { r.pluginPath = v }
        if let v = over.probeTimeout { r.probeTimeout = v }
        if let v = over.probePrepareTimeout { r.probePrepareTimeout = v }
        if let v = over.runTimeout { r.runTimeout = v }
        return r
    }

    /// Checks `value` for `key` and sets it; the error's reason names the key.
    mutating func set(_ key: ConfigKey, _ value: String) throws(ConfigValueError) {
        switch key {
        case .unit:
            do { unit = try UnitSelection(parsing: value) } catch {
                throw ConfigValueError("unit: \(error)")
            }
        case .hide: hide = try Self.unitList(key, value)
        case .visible: visible = try Self.unitList(key, value)
        case .spotCheck:
            do { spotCheck = try SpotCheckPolicy(parsing: value) } catch {
                throw ConfigValueError("spot_check: \(error)")
            }
        case .pluginPath:
            let dirs = value.split(separator: ":").map(String.init).filter { !$0.isEmpty }
            if let relative = dirs.first(where: { !$0.hasPrefix("/") }) {
                throw ConfigValueError("plugin_path: folder \"\(relative)\" is not absolute")
            }
            pluginPath = dirs
        case .probeTimeout: probeTimeout = try Self.seconds(key, value)
        case .probePrepareTimeout: probePrepareTimeout = try Self.seconds(key, value)
        case .runTimeout: runTimeout = try Self.seconds(key, value)
        }
    }

    /// `SEL, SEL, …`: each a kind, a backend name or `NAME:INDEX` (UnitSelection's words
    /// less `best` and `reference`, which name no unit). Empty: an empty list.
    static func unitList(_ key: ConfigKey, _ value: String) throws(ConfigValueError) -> [UnitSelection] {
        var result: [UnitSelection] = []
        if value.trimmingWhitespace().isEmpty { return result }
        for word in value.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingWhitespace() }) {
            if word.isEmpty { throw ConfigValueError("\(key.rawValue): empty entry in \"\(value)\"") }
            let s: UnitSelection
            do { s = try UnitSelection(parsing: word) } catch {
                throw ConfigValueError("\(key.rawValue): \(error)")
            }
            if s == .best || s == .reference {
                throw ConfigValueError("\(key.rawValue): \"\(word)\" names no unit; use cpu, gpu, other, NAME or NAME:INDEX")
            }
            result.append(s)
        }
        return result
    }

    static func seconds(_ key: ConfigKey, _ value: String) throws(ConfigValueError) -> Double {
        guard let t = Double(value), t > 0, t.isFinite else {
            throw ConfigValueError("\(key.rawValue): \"\(value)\" is not a positive number of seconds")
        }
        return t
    }
}

/// A value refused by ConfigLayer.set; the caller adds where it came from.
struct ConfigValueError: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Parses and reads `waihost.conf` files (docs/configuration.md §2).
public enum ConfigFile {
    /// Larger files are refused before they are read.
    public static let sizeLimit = 64 << 10

    /// The settings `text` makes; `name` is how errors name the file.
    public static func parse(_ text: String, name: String) throws(ConfigurationError) -> ConfigLayer {
        var layer = ConfigLayer()
        var firstLine: [ConfigKey: Int] = [:]
        var number = 0
        // "\r\n" is one Character in Swift: both line ends split.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            func fail(_ reason: String) -> ConfigurationError {
                ConfigurationError(location: "\(name):\(number)", reason: reason)
            }
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let content = try stripComment(line, fail)
            if content.isEmpty { continue }
            if content.hasPrefix("[") { throw fail("tables ([section]) are not supported; write key = value lines") }
            guard let eq = content.firstIndex(of: "=") else { throw fail("expected key = value, got \"\(content)\"") }
            let keyText = content[..<eq].trimmingWhitespace()
            guard let key = ConfigKey(rawValue: keyText) else {
                let known = ConfigKey.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail(keyText.isEmpty ? "no key before '='" : "unknown key \"\(keyText)\" (known: \(known))")
            }
            if let first = firstLine[key] { throw fail("\(key.rawValue) is set twice (first at line \(first))") }
            firstLine[key] = number
            let value = try unquote(content[content.index(after: eq)...].trimmingWhitespace(), fail)
            do { try layer.set(key, value) } catch { throw fail(error.reason) }
        }
        return layer
    }

    /// The settings of the file at `path`; an empty layer when it does not exist. A file
    /// that exists but cannot be read, is not a regular file or is too large is an error.
    public static func load(path: String) throws(ConfigurationError) -> ConfigLayer {
        var st = stat()
        if stat(path, &st) != 0, errno == ENOENT || errno == ENOTDIR { return ConfigLayer() }
        let bytes: [UInt8]
        do { bytes = try LocalFile.read(path, limit: sizeLimit) } catch {
            throw ConfigurationError(location: path, reason: (error as? FileError)?.problem ?? "\(error)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(location: path, reason: "not UTF-8 text")
        }
        return try parse(text, name: path)
    }

    /// The line without its comment: `#` outside a quoted value starts one.
    private static func stripComment(_ line: Substring, _ fail: (String) -> ConfigurationError)
        throws(ConfigurationError) -> String {
        var inQuotes = false, escaped = false
        var end = line.endIndex
        for i in line.indices {
            let c = line[i]
            if escaped { escaped = false; continue }
            if inQuotes && c == "\\" { escaped = true; continue }
            if c == "\"" { inQuotes.toggle() }
            if c == "#" && !inQuotes { end = i; break }
        }
        if inQuotes { throw fail("unterminated quoted value") }
        return line[..<end].trimmingWhitespace()
    }

    /// A bare value as it stands, or a TOML basic string "…" with \" and \\ escapes.
    private static func unquote(_ value: String, _ fail: (String) -> ConfigurationError) throws(ConfigurationError) -> String {
        guard value.hasPrefix("\"") else {
            if value.contains("\"") { throw fail("a quote inside a bare value; quote the whole value") }
            return value
        }
        var out = ""
        var escaped = false
        var closed = false
        for c in value.dropFirst() {
            if closed { throw fail("text after the closing quote") }
            if escaped {
                guard c == "\"" || c == "\\" else { throw fail("unknown escape \\\(c); only \\\" and \\\\") }
                out.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == "\"" {
                closed = true
            } else {
                out.append(c)
            }
        }
        guard closed else { throw fail("unterminated quoted value") }
        return out
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
