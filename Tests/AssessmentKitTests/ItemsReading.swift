import Foundation
import Testing
@testable import AssessmentKit

/// Reading a few items as the one section of a small assessment, for suites about items.
protocol ItemsReading {}

extension ItemsReading {
    func read(_ items: String) -> AssessmentReader.Outcome {
        AssessmentReader.read(text: "carrel: 1\nid: t\ntitle: T\nsections:\n  - items:\n" + items, file: "t.yaml")
    }

    func only(_ items: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Item {
        let outcome = read(items)
        #expect(outcome.diagnostics.errors.isEmpty, "\(outcome.diagnostics.map(\.description))", sourceLocation: sourceLocation)
        return try #require(outcome.assessment?.items.first, sourceLocation: sourceLocation)
    }

    func expectProblem(_ items: String, _ line: Int, _ column: Int, _ text: String, severity: Diagnostic.Severity = .error,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        let diagnostics = read(items).diagnostics
        let hit = diagnostics.contains {
            $0.severity == severity && $0.line == line && $0.column == column && $0.message.contains(text)
        }
        #expect(hit, "no \(severity) \(line):\(column) “\(text)” in:\n\(diagnostics.map(\.description).joined(separator: "\n"))",
                sourceLocation: sourceLocation)
    }
}
