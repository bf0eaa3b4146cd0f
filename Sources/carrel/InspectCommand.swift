import Localization
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

            For a sealed package (.carrel) only its public header is shown: title, number of \
            questions, time limit, policy and fingerprint. With --passphrase-stdin it is opened in \
            memory and summarised like the YAML it came from, proctor notes included.
            """
    )

    @Argument(help: "An assessment file (.yaml, or sealed .carrel).")
    var file: String

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @Flag(name: .customLong("passphrase-stdin"), help: "Open a sealed file with the proctor passphrase read from standard input.")
    var passphraseStdin = false

    func run() throws {
        try reportingFailures {
            let loaded = try AssessmentFile.load(file)
            guard SealedAssessment.isSealed(loaded.bytes) else {
                let summary = AssessmentSummary(try AssessmentFile.validated(file, loaded: loaded))
                FileOutput.standardOutput.write(json ? try summary.json() : summary.text(file: file))
                return
            }
            let header = try SealedFile.header(loaded, path: file)
            guard passphraseStdin else {
                let summary = SealedSummary(metadata: header.metadata)
                FileOutput.standardOutput.write(json ? try summary.json() : summary.text(file: file))
                return
            }
            let reader = SecretReader()
            let passphrase = try reader.read(prompt: "Proctor passphrase of \(file): ")
            reader.finish()
            var summary = AssessmentSummary(try SealedFile.open(loaded, path: file, passphrase: passphrase))
            summary.sealed = true
            FileOutput.standardOutput.write(json ? try summary.json() : summary.text(file: file))
        }
    }
}

/// What `inspect` shows of a sealed package without its passphrase: the public header.
struct SealedSummary {
    let metadata: SealedAssessment.Metadata

    func text(file: String) -> String {
        let m = metadata
        var out = "\(m.title) (\(m.id))\n"
        out += "  file:        \(file)\n"
        out += "  sealed:      yes — questions and answers are encrypted; add --passphrase-stdin to open it\n"
        out += "  items:       \(m.items)\n"
        out += "  time limit:  \(m.timeLimit.map(DurationText.format) ?? "none (untimed)")\n"
        out += "  navigation:  \(m.navigation.rawValue)"
        out += m.navigation == .linear ? " (no going back)\n" : " (move to any question)\n"
        out += "  proctor:     passphrase required to open, launch, end early, resume, unlock\n"
        out += "  commands:    \(AssessmentSummary.commandsText(m.key))\n"
        out += "  language:    \(AssessmentSummary.languageText(m.language))\n"
        out += AssessmentSummary.policyText(m.policy)
        out += "\nFingerprint: \(m.fingerprint) (this package's, keyed by its passphrase; --passphrase-stdin shows the content's sha256)\n"
        return out
    }

    func json() throws(CarrelFailure) -> String {
        struct Output: Encodable {
            var id: String
            var title: String
            var fingerprint: String
            var items: Int
            var timeLimitSeconds: Int?
            var navigation: String
            var passphraseRequired: Bool
            var policy: [String: String]
            var sealed: Bool
            var opened: Bool
            var language: String?
        }
        let m = metadata
        var policy: [String: String] = [:]
        for row in m.policy.summary { policy[row.key] = row.value }
        return try JSONText.summary(Output(
            id: m.id, title: m.title, fingerprint: m.fingerprint, items: m.items, timeLimitSeconds: m.timeLimit,
            navigation: m.navigation.rawValue, passphraseRequired: true, policy: policy, sealed: true, opened: false,
            language: m.language))
    }
}

/// What `inspect` reports, computed once for the text and JSON forms.
struct AssessmentSummary {
    let assessment: Assessment
    let fingerprint: String
    /// Opened from a sealed package.
    var sealed = false

    init(_ assessment: Assessment) {
        self.assessment = assessment
        self.fingerprint = Fingerprint.of(assessment)
    }

    var countsByType: [(ItemType, Int)] { Self.countsByType(assessment) }

    /// How many items of each type, in the format's order of types (none left out).
    static func countsByType(_ assessment: Assessment) -> [(ItemType, Int)] {
        var counts: [ItemType: Int] = [:]
        for section in assessment.sections {
            for item in section.items { counts[item.type, default: 0] += 1 }
        }
        return ItemType.allCases.compactMap { type in counts[type].map { (type, $0) } }
    }

    func text(file: String) -> String {
        let a = assessment
        let counts = countsByType.map { "\($0.0.rawValue) \($0.1)" }.joined(separator: ", ")
        var out = "\(a.title) (\(a.id))\n"
        out += "  file:        \(file)\n"
        out += "  sections:    \(a.sections.count)\n"
        out += "  items:       \(a.itemCount) (\(counts))\n"
        if a.hasPools {
            out += "  per session: \(a.questionsPerSession) questions drawn, \(Self.pointsText(a.sections.map(Self.pointsPerSession)))\n"
        } else {
            out += "  points:      \(PointsText.format(a.maximumPoints))\n"
        }
        out += "  time limit:  \(a.timeLimit.map(DurationText.format) ?? "none (untimed)")\n"
        out += "  navigation:  \(a.navigation.rawValue)"
        out += a.navigation == .linear ? " (no going back)\n" : " (move to any question)\n"
        out += "  shuffle:     items \(a.shuffle.items ? "yes" : "no"), choices \(a.shuffle.choices ? "yes" : "no")\n"
        out += "  score:       \(a.results.showScore ? "shown to the student at the end" : "not shown to the student")\n"
        out += "  proctor:     \(a.proctor.passphrase == nil ? "no passphrase (practice mode)" : "passphrase required to launch, end early, resume, unlock")\n"
        out += "  commands:    \(AssessmentSummary.commandsText(a.proctor.key))\n"
        out += "  language:    \(Self.languageText(a.language))\n"
        if sealed { out += "  sealed:      yes (opened in memory with the passphrase)\n" }
        out += "\nSections\n"
        for (i, section) in a.sections.enumerated() {
            let points = section.items.reduce(0) { $0 + $1.points }
            if let draw = section.draw {
                out += "  \(i + 1). \(section.title ?? "(untitled)") — a pool: each session draws \(draw) of its \(section.items.count) items, "
                out += "\(Self.pointsText([Self.pointsPerSession(section)]))\n"
            } else {
                let n = section.items.count
                out += "  \(i + 1). \(section.title ?? "(untitled)") — \(n) item\(n == 1 ? "" : "s"), \(PointsText.format(points)) point\(points == 1 ? "" : "s")\n"
            }
            out += Self.note(section.proctorNote, indent: 7)
            let width = section.items.map(\.id.count).max() ?? 0
            for item in section.items {
                out += "       \(item.id.padding(toLength: width + 2, withPad: " ", startingAt: 0))\(item.type.rawValue), \(PointsText.format(item.points)) pt\n"
                out += Self.note(item.proctorNote, indent: 9 + width)
            }
        }
        out += Self.policyText(a.policy)
        out += "\nFingerprint: \(fingerprint)\n"
        return out
    }

    /// The language the students' screens speak, and where that comes from.
    static func languageText(_ language: String?) -> String {
        let environment = Language.fromEnvironment(ProcessEnvironment.current)
        guard let tag = language, let known = Language(tag: tag) else {
            return "not set: each seat's LC_ALL / LC_MESSAGES / LANG, else English (here: \(environment.rawValue), \(environment.name)); "
                + "a roster's language column or --language chooses one"
        }
        return "\(known.rawValue) (\(known.name)), from the assessment's language key; a roster's language column or --language chooses another"
    }

    /// Whether a room's console can command seats sitting this test.
    static func commandsText(_ key: ProctorKey?) -> String {
        key == nil
            ? "none: no proctor key, so a room's seats can be watched but not commanded (`carrel passphrase` prints the key line)"
            : "signed with the proctor passphrase's key (\(String(key?.description.prefix(20) ?? ""))…)"
    }

    /// The effective policy, one row per key, and what is never offered.
    static func policyText(_ policy: RestrictionPolicy) -> String {
        var out = "\nEffective policy\n"
        for row in policy.summary {
            out += "  \(row.key.padding(toLength: 13, withPad: " ", startingAt: 0))"
            out += "\(row.value.padding(toLength: 8, withPad: " ", startingAt: 0)) \(row.meaning)\n"
        }
        out += "  never offered: \(RestrictionPolicy.neverOffered.joined(separator: ", "))\n"
        return out
    }

    /// The fewest and most points a session can be given from a section.
    static func pointsPerSession(_ section: Section) -> ClosedRange<Double> {
        let points = section.items.map(\.points).sorted()
        let n = min(section.draw ?? points.count, points.count)
        return points.prefix(n).reduce(0, +)...points.suffix(n).reduce(0, +)
    }

    /// "12 points", or "10 to 14 points" when pools of unequal items make totals differ.
    static func pointsText(_ ranges: [ClosedRange<Double>]) -> String {
        let low = ranges.reduce(0) { $0 + $1.lowerBound }, high = ranges.reduce(0) { $0 + $1.upperBound }
        return low == high ? "\(PointsText.format(low)) points" : "\(PointsText.format(low)) to \(PointsText.format(high)) points"
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
                /// A pool: how many of `items` each session is given.
                var draw: Int?
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
            var sealed: Bool
            var questionsPerSession: Int
            /// The assessment's language key (nil: each seat's environment, else English).
            var language: String?
        }
        let a = assessment
        var policy: [String: String] = [:]
        for row in a.policy.summary { policy[row.key] = row.value }
        let output = Output(
            id: a.id, title: a.title, fingerprint: fingerprint, items: a.itemCount,
            itemsByType: Dictionary(uniqueKeysWithValues: countsByType.map { ($0.0.rawValue, $0.1) }),
            points: a.maximumPoints, timeLimitSeconds: a.timeLimit, navigation: a.navigation.rawValue,
            passphraseRequired: a.proctor.passphrase != nil, policy: policy,
            sections: a.sections.map { s -> Output.SectionOut in
                let notes = s.items.compactMap { item in item.proctorNote.map { (item.id, $0) } }
                return .init(title: s.title, items: s.items.map(\.id), points: s.items.reduce(0) { $0 + $1.points },
                             proctorNote: s.proctorNote,
                             proctorNotes: notes.isEmpty ? nil : Dictionary(uniqueKeysWithValues: notes), draw: s.draw)
            }, sealed: sealed, questionsPerSession: a.questionsPerSession, language: a.language)
        return try JSONText.summary(output)
    }
}

extension JSONText {
    /// `inspect --json`: pretty, sorted snake_case keys.
    static func summary<T: Encodable>(_ value: T) throws(CarrelFailure) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
        } catch {
            throw CarrelFailure(status: .internalError, message: "cannot write the summary as JSON: \(error)")
        }
    }
}
