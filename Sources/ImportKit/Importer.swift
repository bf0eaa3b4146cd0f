import AssessmentKit

/// The question-bank formats Carrel reads.
public enum ImportFormat: String, Sendable, Hashable, CaseIterable {
    case gift, aiken, qti, moodle, cloze

    /// The format of a file from its name and first bytes, or nil when it cannot be told.
    /// XML whose root is `<quiz>` is Moodle XML, whatever the file is called.
    public static func guess(name: String, bytes: [UInt8]) -> ImportFormat? {
        if ZipPackage.isZip(bytes) { return .qti }
        if MoodleReader.looksLikeQuiz(bytes) { return .moodle }
        let lower = name.lowercased()
        if lower.hasSuffix(".zip") || lower.hasSuffix(".xml") || lower.hasSuffix(".qti") { return .qti }
        if lower.hasSuffix(".gift") { return .gift }
        if lower.hasSuffix(".aiken") { return .aiken }
        if lower.hasSuffix(".cloze") { return .cloze }
        let text = Importer.utf16Text(bytes.prefix(1 << 20), prefix: bytes.count > 1 << 20) ?? String(decoding: bytes.prefix(1 << 20), as: UTF8.self)
        let start = text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        if start.hasPrefix("<") { return .qti }
        var aiken = 0, gift = 0
        for raw in GIFTReader.lines(of: text) {
            let line = raw.trimmedPHP()
            if line.hasPrefix("ANSWER:") { aiken += 1 }
            // Moodle's Cloze export separates questions with this line; a line ending with an
            // embedded answer is no sign of GIFT either.
            if line == ClozeReader.separator || endsWithEmbeddedAnswer(line) { continue }
            if line.hasPrefix("::") || line.hasPrefix("$CATEGORY:") || line.hasSuffix("}") || line.hasPrefix("//") { gift += 1 }
        }
        if aiken > 0 && gift == 0 { return .aiken }
        if gift > 0 && aiken == 0 { return .gift }
        if gift == 0 && aiken == 0 && ClozeText.contains(text) { return .cloze }
        return nil
    }
}

extension ImportFormat {
    /// True when the line's last `{` opens an embedded answer `{1:SA:…}` that the line closes.
    static func endsWithEmbeddedAnswer(_ line: String) -> Bool {
        let s = Array(line.unicodeScalars)
        guard s.last == "}", let open = s.lastIndex(of: "{") else { return false }
        return ClozeSyntax.header(s, at: open).map(ClozeSyntax.isEmbedded) ?? false
    }
}

/// Turns bank files into one assessment that passes validation.
public enum Importer {
    /// Text banks (GIFT, Aiken, Cloze) larger than this are refused, like assessment files.
    public static let maximumTextBytes = SourceText.maximumBytes

    /// Reads one GIFT, Aiken or Cloze file (or a Moodle XML or QTI file, handed to its reader).
    /// Bytes of a text bank that are not UTF-8 are read as Windows-1252, the encoding old
    /// exports use, with a warning.
    public static func readText(_ bytes: [UInt8], file: String, format: ImportFormat) throws(ImportRefusal) -> ImportedBank {
        if format == .moodle { return try MoodleReader.read(bytes: bytes, file: file) }
        guard bytes.count <= maximumTextBytes else {
            throw ImportRefusal(file: file, reason: "the file is larger than \(maximumTextBytes / 1024 / 1024) MiB")
        }
        var notes: [ImportDiagnostic] = []
        let text: String
        if format != .qti, bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            // Windows' "Unicode" (UTF-16, with its byte-order mark): read as such, or refused.
            guard bytes.count % 2 == 0, let utf16 = utf16Text(bytes[...]) else {
                throw ImportRefusal(file: file, reason: "the file starts like UTF-16 but is not valid UTF-16; save it as UTF-8")
            }
            text = utf16
        } else if let utf8 = String(validating: bytes, as: UTF8.self) {
            text = utf8
        } else {
            text = String(String.UnicodeScalarView(bytes.map(windows1252)))
            notes.append(.warning(file, nil, "the file is not UTF-8; it was read as Windows-1252 (Latin-1)"))
        }
        var bank: ImportedBank
        switch format {
        case .gift: bank = GIFTReader.read(text, file: file)
        case .aiken: bank = AikenReader.read(text, file: file)
        case .cloze: bank = ClozeReader.read(text, file: file)
        case .qti: return try QTIReader.read(bytes: bytes, file: file, folder: nil, path: nil)
        case .moodle: return try MoodleReader.read(bytes: bytes, file: file)
        }
        bank.diagnostics = notes + bank.diagnostics
        return bank
    }

    /// The text of bytes that start with a UTF-16 byte-order mark (little or big endian),
    /// without the mark; nil when they do not, or are not valid UTF-16. With `prefix`, the
    /// bytes are the start of a longer file: a character cut at their end is left out.
    static func utf16Text(_ bytes: ArraySlice<UInt8>, prefix: Bool = false) -> String? {
        guard bytes.count >= 2 else { return nil }
        let little: Bool
        switch (bytes[bytes.startIndex], bytes[bytes.startIndex + 1]) {
        case (0xFF, 0xFE): little = true
        case (0xFE, 0xFF): little = false
        default: return nil
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var i = bytes.startIndex + 2
        while i + 1 < bytes.endIndex {
            let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
            units.append(little ? a | b << 8 : a << 8 | b)
            i += 2
        }
        if prefix, let last = units.last, (0xD800...0xDBFF).contains(last) { units.removeLast() }
        return String(validating: units, as: UTF16.self)
    }

    static func windows1252(_ byte: UInt8) -> Unicode.Scalar {
        let high: [UInt32] = [
            0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
            0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
        ]
        if (0x80...0x9F).contains(byte) { return Unicode.Scalar(high[Int(byte) - 0x80]) ?? "?" }
        return Unicode.Scalar(byte)
    }

    public struct Options: Sendable {
        public var id: String
        public var title: String
        public var timeLimit: Int?
        public init(id: String, title: String, timeLimit: Int? = nil) {
            self.id = id
            self.title = title
            self.timeLimit = timeLimit
        }
    }

    /// The assessment, its YAML, and diagnostics for questions that still failed validation.
    public struct Assembly: Sendable {
        public var assessment: Assessment?
        public var yaml: String?
        public var diagnostics: [ImportDiagnostic]
    }

    /// One assessment from every bank: a section per GIFT category, per QTI test section or per
    /// file, unique ids, and only questions the validator accepts (checked by reading the
    /// written YAML back). A QTI test's time limit (unless `options` gives one), linear
    /// navigation and item shuffle hold for the whole assessment.
    public static func assemble(_ banks: [ImportedBank], options: Options, header: [String] = []) -> Assembly {
        var ids = IdentifierMaker()
        var sections: [Section] = []
        var origins: [ImportedSection] = []
        var sources: [String: ImportedQuestion] = [:]
        var number = 0
        for bank in banks {
            for imported in bank.sections {
                var items: [Item] = []
                for question in imported.questions {
                    number += 1
                    var item = question.item
                    item.id = ids.make(from: question.name, fallback: "q\(number)")
                    sources[item.id] = question
                    items.append(item)
                }
                // A file's name is text like any other: a control or invisible mark in it would fail validation.
                let fileTitle = banks.count > 1 ? ImportText.clean(QTIReader.stem(bank.file), multiLine: false).nonEmpty : nil
                let title = imported.title ?? fileTitle
                sections.append(Section(title: title, instructions: imported.instructions, items: items,
                                        proctorNote: imported.proctorNote, draw: imported.draw))
                origins.append(imported)
            }
        }
        var diagnostics: [ImportDiagnostic] = []
        let order = banks.map(\.choiceOrder).reduce(ChoiceOrder(), +)
        if order.isMixed && !banks.contains(where: \.choiceOrder.isMixed) {
            // Each bank is consistent on its own (a mixed one has said so already), but not together.
            diagnostics.append(.warning(banks.map(\.file).joined(separator: ", "), nil, order.mixedWarning))
        }
        var assessment = Assessment(id: options.id, title: options.title,
                                    timeLimit: options.timeLimit ?? banks.lazy.compactMap(\.timeLimit).first,
                                    navigation: banks.contains { $0.navigation == .linear } ? .linear : .free,
                                    shuffle: Shuffle(items: banks.contains(where: \.shuffleItems), choices: order.shufflesAll),
                                    sections: sections)
        var yaml = AssessmentWriter.yaml(assessment, header: header)
        if !reads(yaml, as: assessment) {
            // Find the questions the validator refuses, report them where they came from, drop them.
            for (s, section) in assessment.sections.enumerated() {
                assessment.sections[s].items = section.items.filter { item in
                    let alone = Assessment(id: options.id, title: options.title, sections: [Section(items: [item])])
                    guard let problem = firstError(alone) else { return true }
                    let source = sources[item.id]
                    diagnostics.append(.error(source?.file ?? "", source?.line, "the converted question does not pass validation: \(problem)"))
                    return false
                }
                let left = assessment.sections[s].items.count
                if let draw = section.draw, left < section.items.count, draw >= left {
                    // A pool left with no more items than it draws gives them all.
                    let origin = origins[s]
                    let name = section.title.map { "section “\($0)”" } ?? "the section"
                    diagnostics.append(.warning(origin.file ?? "", origin.line, "\(name) draws \(draw) of its items, but only \(left) passed validation; every one of them is given"))
                    assessment.sections[s].draw = nil
                }
            }
            assessment.sections.removeAll { $0.items.isEmpty }
            guard !assessment.items.isEmpty else { return Assembly(assessment: nil, yaml: nil, diagnostics: diagnostics) }
            yaml = AssessmentWriter.yaml(assessment, header: header)
            if let problem = firstError(assessment, yaml: yaml) {
                // Every question passes alone, so what fails is shared: a title, a section's heading.
                diagnostics.append(.error(banks.first?.file ?? options.title, nil, "the converted assessment does not pass validation: \(problem)"))
                return Assembly(assessment: nil, yaml: nil, diagnostics: diagnostics)
            }
        }
        return Assembly(assessment: assessment, yaml: yaml, diagnostics: diagnostics)
    }

    /// True when the written YAML passes validation and reads back as the assessment it was written from.
    static func reads(_ yaml: String, as a: Assessment) -> Bool {
        guard !a.sections.isEmpty else { return false }
        let outcome = AssessmentReader.read(text: yaml, file: "import.yaml")
        return outcome.diagnostics.errors.isEmpty && outcome.assessment == a
    }

    static func firstError(_ a: Assessment, yaml: String? = nil) -> String? {
        let outcome = AssessmentReader.read(text: yaml ?? AssessmentWriter.yaml(a), file: "import.yaml")
        if let error = outcome.diagnostics.errors.first { return error.message }
        return outcome.assessment == a ? nil : "it reads back differently from how it was converted"
    }
}
