import Foundation
import Testing
@testable import AssessmentKit

/// Every file in Assessments/ must stay valid: teachers copy them.
@Suite("Assessments folder")
struct SampleAssessmentsTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Assessments")

    static var files: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test func theSamplesAreThere() {
        let names = Self.files.map(\.lastPathComponent)
        #expect(names.contains("geography.yaml"))
        #expect(names.contains("spelling.yaml"))
        #expect(names.contains("workshop.yaml"))
    }

    @Test(arguments: files)
    func validWithoutWarnings(file: URL) throws {
        let bytes = try [UInt8](Data(contentsOf: file))
        let outcome = AssessmentReader.read(bytes: bytes, file: file.lastPathComponent)
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.description))")
        #expect(outcome.assessment != nil)
    }

    @Test func workshopHasOneItemOfEveryTypeAndOnlyRelaxesTheMultiplexer() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent("workshop.yaml")))
        let assessment = try #require(AssessmentReader.read(bytes: bytes, file: "workshop.yaml").assessment)
        #expect(Set(assessment.items.map(\.type)) == Set(ItemType.allCases))
        var expected = RestrictionPolicy()
        expected.multiplexer = .allow
        #expect(assessment.policy == expected)
    }
}
