import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

/// The fixture files of these tests.
enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func url(_ path: String) -> URL { folder.appendingPathComponent(path) }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: url(path))) }

    static func text(_ path: String) throws -> String { String(decoding: try bytes(path), as: UTF8.self) }

    /// Every file below `subfolder` whose name ends with one of `extensions`, sorted.
    static func files(in subfolder: String, extensions: [String]) -> [String] {
        let base = url(subfolder)
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var out: [String] = []
        while let next = walker.nextObject() as? String {
            if extensions.contains(where: { next.hasSuffix($0) }) { out.append(subfolder + "/" + next) }
        }
        return out.sorted()
    }
}

extension ImportedBank {
    var items: [Item] { questions.map(\.item) }
    var types: [ItemType] { items.map(\.type) }
    var errors: [ImportDiagnostic] { diagnostics.filter { $0.severity == .error } }
    var skips: [ImportDiagnostic] { diagnostics.filter(\.skipped) }

    func question(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Item {
        try #require(questions.first { $0.name == name }?.item, "no question named \(name)", sourceLocation: sourceLocation)
    }

    /// Counts per type, as `choice 5, multiple 2`.
    var typeCounts: [ItemType: Int] { Dictionary(grouping: types, by: { $0 }).mapValues(\.count) }
}

/// Every item of a bank, assembled and written, must pass the validator and read back equal.
func expectValidAssessment(_ banks: [ImportedBank], sourceLocation: SourceLocation = #_sourceLocation) throws -> Assessment {
    let assembly = Importer.assemble(banks, options: .init(id: "imported", title: "Imported"))
    #expect(assembly.diagnostics.isEmpty, "\(assembly.diagnostics)", sourceLocation: sourceLocation)
    let yaml = try #require(assembly.yaml, sourceLocation: sourceLocation)
    let outcome = AssessmentReader.read(text: yaml, file: "imported.yaml")
    #expect(outcome.diagnostics.errors.isEmpty, "\(outcome.diagnostics.map(\.description))\n\(yaml)", sourceLocation: sourceLocation)
    let back = try #require(outcome.assessment, sourceLocation: sourceLocation)
    #expect(back == assembly.assessment, sourceLocation: sourceLocation)
    return back
}
