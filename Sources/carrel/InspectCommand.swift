import ArgumentParser
import AssessmentKit
import Foundation

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Summarise an assessment: sections, items, points, time, policy, fingerprint.",
        discussion: """
            The fingerprint is the SHA-256 of the assessment's canonical content: it stays the \
            same when only comments, key order or formatting change, and it is recorded with \
            every result so a teacher can tell which version a student sat.
            """
    )

    @Argument(help: "An assessment file (.yaml).")
    var file: String

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func run() throws {
        try reportingFailures {
            let assessment = try AssessmentFile.validated(file)
            let summary = AssessmentSummary(assessment)
            FileOutput.standardOutput.write(json ? try summary.json() : summary.text(file: file))
        }
    }
}

/// What `inspect` reports, computed once for the text and JSON forms.
struct AssessmentSummary {
    let assessment: Assessment
    let fingerprint: String

    init(_ assessment: Assessment) {
        self.assessment = assessment
        self.fingerprint = Fingerprint.of(assessment)
    }

    var countsByType: [(ItemType, Int)] {
        ItemType.allCases.compactMap { type in
            let n = assessment.items.filter { $0.type == type }.count
            return n > 0 ? (type, n) : nil
        }
    }

    func text(file: String) -> String {
        let a = assessment
        let counts = countsByType.map { "\($0.0.rawValue) \($0.1)" }.joined(separator: ", ")
        var out = "\(a.title) (\(a.id))\n"
        out += "  file:        \(file)\n"
        out += "  sections:    \(a.sections.count)\n"
        out += "  items:       \(a.items.count) (\(counts))\n"
        out += "  points:      \(PointsText.format(a.maximumPoints))\n"
        out += "  time limit:  \(a.timeLimit.map(DurationText.format) ?? "none (untimed)")\n"
        out += "  navigation:  \(a.navigation.rawValue)"
        out += a.navigation == .linear ? " (no going back)\n" : " (move to any question)\n"
        out += "  shuffle:     items \(a.shuffle.items ? "yes" : "no"), choices \(a.shuffle.choices ? "yes" : "no")\n"
        out += "  score:       \(a.results.showScore ? "shown to the student at the end" : "not shown to the student")\n"
        out += "  proctor:     \(a.proctor.passphrase == nil ? "no passphrase (practice mode)" : "passphrase required to launch, end early, resume, unlock")\n"
        out += "\nSections\n"
        for (i, section) in a.sections.enumerated() {
            let points = section.items.reduce(0) { $0 + $1.points }
            out += "  \(i + 1). \(section.title ?? "(untitled)") — \(section.items.count) items, \(PointsText.format(points)) points\n"
            out += Self.note(section.proctorNote, indent: 7)
            let width = section.items.map(\.id.count).max() ?? 0
            for item in section.items {
                out += "       \(item.id.padding(toLength: width + 2, withPad: " ", startingAt: 0))\(item.type.rawValue), \(PointsText.format(item.points)) pt\n"
                out += Self.note(item.proctorNote, indent: 9 + width)
            }
        }
        out += "\nEffective policy\n"
        for row in a.policy.summary {
            out += "  \(row.key.padding(toLength: 13, withPad: " ", startingAt: 0))"
            out += "\(row.value.padding(toLength: 8, withPad: " ", startingAt: 0)) \(row.meaning)\n"
        }
        out += "  never offered: \(RestrictionPolicy.neverOffered.joined(separator: ", "))\n"
        out += "\nFingerprint: \(fingerprint)\n"
        return out
    }

    /// A proctor note under its section or item, one `proctor:` line per line of the note.
    static func note(_ text: String?, indent: Int) -> String {
        guard var text else { return "" }
        while text.hasSuffix("\n") { text.removeLast() }
        let pad = String(repeating: " ", count: indent)
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { "\(pad)proctor: \($0)\n" }.joined()
    }

    func json() throws(CarrelFailure) -> String {
        struct Output: Encodable {
            struct SectionOut: Encodable {
                var title: String?
                var items: [String]
                var points: Double
                var proctorNote: String?
                var proctorNotes: [String: String]?
            }
            var id: String
            var title: String
            var fingerprint: String
            var items: Int
            var itemsByType: [String: Int]
            var points: Double
            var timeLimitSeconds: Int?
            var navigation: String
            var passphraseRequired: Bool
            var policy: [String: String]
            var sections: [SectionOut]
        }
        let a = assessment
        var policy: [String: String] = [:]
        for row in a.policy.summary { policy[row.key] = row.value }
        let output = Output(
            id: a.id, title: a.title, fingerprint: fingerprint, items: a.items.count,
            itemsByType: Dictionary(uniqueKeysWithValues: countsByType.map { ($0.0.rawValue, $0.1) }),
            points: a.maximumPoints, timeLimitSeconds: a.timeLimit, navigation: a.navigation.rawValue,
            passphraseRequired: a.proctor.passphrase != nil, policy: policy,
            sections: a.sections.map { s -> Output.SectionOut in
                let notes = s.items.compactMap { item in item.proctorNote.map { (item.id, $0) } }
                return .init(title: s.title, items: s.items.map(\.id), points: s.items.reduce(0) { $0 + $1.points },
                             proctorNote: s.proctorNote,
                             proctorNotes: notes.isEmpty ? nil : Dictionary(uniqueKeysWithValues: notes))
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        do {
            return String(decoding: try encoder.encode(output), as: UTF8.self) + "\n"
        } catch {
            throw CarrelFailure(status: .internalError, message: "cannot write the summary as JSON: \(error)")
        }
    }
}
