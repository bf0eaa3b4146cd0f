#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import ImportKit

/// What every fuzz target checks besides "no crash, no hang": whatever an importer accepts
/// is safe for a terminal and writes out as YAML that reads back to the same assessment.
enum Checks {
    /// CARREL_FUZZ_DEEP=1 also assembles every bank and reads its YAML back through the
    /// validator: a stronger check, about ten times slower.
    static let deep = getenv("CARREL_FUZZ_DEEP") != nil

    static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    static func terminalSafe(_ text: String, multiLine: Bool = true) {
        for s in text.unicodeScalars where TerminalSafety.isBidiControl(s) || (TerminalSafety.isControl(s) && !(multiLine && s == "\n")) {
            fatalError("unsafe character U+\(String(s.value, radix: 16)) in \(text.debugDescription)")
        }
    }

    static func bank(_ bank: ImportedBank) {
        for d in bank.diagnostics { terminalSafe(d.description, multiLine: false) }
        for section in bank.sections {
            section.title.map { terminalSafe($0, multiLine: false) }
            for q in section.questions {
                terminalSafe(q.item.prompt)
                q.item.feedback.map { terminalSafe($0) }
                q.item.proctorNote.map { terminalSafe($0) }
                if case let .choice(choices, _) = q.item.kind { choices.forEach { terminalSafe($0, multiLine: false) } }
                if case let .multiple(choices, _, _) = q.item.kind { choices.forEach { terminalSafe($0, multiLine: false) } }
                if case let .gaps(gaps) = q.item.kind { self.gaps(gaps, prompt: q.item.prompt) }
            }
        }
        guard deep else { return }
        let assembly = Importer.assemble([bank], options: .init(id: "fuzz", title: "Fuzz"))
        guard let a = assembly.assessment, let yaml = assembly.yaml else { return }
        roundTrip(a, yaml)
    }

    /// Every gap's texts are safe, and the prompt marks each gap once, in order.
    static func gaps(_ gaps: [Gap], prompt: String) {
        let numbers = Item.gapMarkers(in: prompt).map(\.number)
        guard !gaps.isEmpty, numbers == Array(1...gaps.count) else {
            fatalError("the prompt marks \(numbers) for \(gaps.count) gaps: \(prompt.debugDescription)")
        }
        for gap in gaps {
            switch gap.kind {
            case let .text(answers, _):
                for a in answers { terminalSafe(a.text, multiLine: false); a.feedback.map { terminalSafe($0) } }
            case let .choice(options, _):
                for o in options { terminalSafe(o.text, multiLine: false); o.feedback.map { terminalSafe($0) } }
            case let .number(answers):
                for a in answers { a.feedback.map { terminalSafe($0) } }
            }
        }
    }

    static func roundTrip(_ a: Assessment, _ yaml: String) {
        let back = AssessmentReader.read(text: yaml, file: "fuzz.yaml")
        guard back.assessment == a else {
            fatalError("written YAML does not read back: \(back.diagnostics.map(\.description))\n\(yaml)")
        }
    }
}
