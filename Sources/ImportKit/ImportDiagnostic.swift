/// A problem or a skipped question, with the file (and line, when one is known) it came from.
public struct ImportDiagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable { case error, warning }

    /// The input file; for an item inside a QTI package, `package.zip:items/q1.xml`.
    public var file: String
    public var line: Int?
    public var severity: Severity
    /// True for a question left out because Carrel has no equivalent for it.
    public var skipped: Bool
    public var message: String

    public init(file: String, line: Int?, severity: Severity, skipped: Bool = false, message: String) {
        self.file = file
        self.line = line
        self.severity = severity
        self.skipped = skipped
        self.message = message
    }

    static func skip(_ file: String, _ line: Int?, _ message: String) -> ImportDiagnostic {
        ImportDiagnostic(file: file, line: line, severity: .warning, skipped: true, message: message)
    }

    static func error(_ file: String, _ line: Int?, _ message: String) -> ImportDiagnostic {
        ImportDiagnostic(file: file, line: line, severity: .error, message: message)
    }

    static func warning(_ file: String, _ line: Int?, _ message: String) -> ImportDiagnostic {
        ImportDiagnostic(file: file, line: line, severity: .warning, message: message)
    }

    /// `FILE:LINE: warning: skipped: REASON`, `FILE:LINE: error: REASON`, or without the line.
    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        return "\(place): \(severity.rawValue): \(skipped ? "skipped: " : "")\(message)"
    }
}

/// A file refused as a whole because reading it could be an attack (entity expansion, a path
/// leaving the package, a zip bomb) or it is far beyond what a bank needs.
public struct ImportRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var reason: String
    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(file): refused: \(reason)" }
}
