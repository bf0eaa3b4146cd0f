#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import ImportKit
import Lockdown

/// The bank formats `--format` names.
enum BankFormat: String, CaseIterable, ExpressibleByArgument {
    case moodle, gift, aiken, cloze, qti

    var format: ImportFormat {
        switch self {
        case .gift: return .gift
        case .aiken: return .aiken
        case .cloze: return .cloze
        case .qti: return .qti
        case .moodle: return .moodle
        }
    }
}

/// A duration such as `45m` or `1h30m`.
struct TimeLimit: ExpressibleByArgument {
    let seconds: Int
    init?(argument: String) {
        guard let seconds = DurationText.parse(argument), seconds > 0 else { return nil }
        self.seconds = seconds
    }
    static var defaultCompletionKind: CompletionKind { .list(["10m", "45m", "1h", "1h30m"]) }
}

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Convert Moodle XML, GIFT, Aiken or Cloze banks and QTI 2.1/3.0 items or packages into an assessment.",
        discussion: """
            FILE may be a Moodle XML export (<quiz>), a GIFT, Aiken or Cloze (Moodle's embedded \
            answers) text file, a QTI item (.xml), a QTI test (.xml, next to its items), a \
            package's imsmanifest.xml, a folder holding one, or a QTI package (.zip); a QTI test \
            keeps its sections, pools (selection), shuffle, time limit and linear navigation. The \
            format is guessed from each file's name and content unless --format says it; a Cloze \
            file is one question, or several separated by lines //NEWCLOZEQUESTION. Every \
            question is converted to the Carrel \
            item closest to it; each one that cannot be is reported as FILE:LINE: warning: skipped: \
            REASON (no Carrel equivalent) or FILE:LINE: error: REASON (malformed), and the rest is \
            written. The output passes `carrel validate`; check it with `carrel inspect` before a test.

            Exits 0 when at least one question was written, 65 when none could be (or a file was \
            refused as unsafe: an XML document type, a zip bomb, a path leaving the package), \
            66 when a file cannot be read, 73 when the output cannot be written.
            """
    )

    @Argument(help: ArgumentHelp("Question banks: Moodle XML, GIFT, Aiken, Cloze, QTI items, manifests, package folders or zips.", valueName: "file"))
    var files: [String]

    @Option(help: "The format of every FILE: moodle (Moodle XML), gift, aiken, cloze or qti (default: guessed for each file).")
    var format: BankFormat?

    @Option(help: ArgumentHelp("The assessment file to write (YAML, mode 0600).", valueName: "file.yaml"))
    var out: String

    @Option(help: "The assessment's id (default: from the output file's name).")
    var id: String?

    @Option(help: "The assessment's title (default: a QTI test's own, else from the input file's name).")
    var title: String?

    @Option(name: .customLong("time-limit"), help: ArgumentHelp("A time limit such as 45m or 1h30m (default: a QTI test's own, else untimed).", valueName: "duration"))
    var timeLimit: TimeLimit?

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one question bank to import") }
        if let id, !Identifier.isValid(id) {
            throw ValidationError("--id must use only a-z, 0-9 and '-', start with a letter or digit, and be at most 64 characters")
        }
        if let title, ImportText.clean(title, multiLine: false).isEmpty { throw ValidationError("--title is empty") }
    }

    func run() throws {
        try reportingFailures {
            let inputs = try files.map(readInput)
            let banks = try inputs.map(convert)
            let assembly = Importer.assemble(banks, options: options(banks), header: [
                "Imported by `carrel import` from \(files.joined(separator: ", ")).",
                "Check it with `carrel validate` and `carrel inspect` before a test.",
            ])
            let diagnostics = banks.flatMap(\.diagnostics) + assembly.diagnostics
            for diagnostic in diagnostics {
                FileOutput.standardError.write(diagnostic.description.clippedForMessage(limit: 2000) + "\n")
            }
            guard let assessment = assembly.assessment, let yaml = assembly.yaml else {
                // Point at the lines above only when some were printed.
                let why = diagnostics.isEmpty
                    ? "no question was found in \(files.count == 1 ? "the file" : "the files")"
                    : "see the lines above"
                throw CarrelFailure(status: .invalidAssessment, message: "no question could be converted; \(why) (nothing was written)")
            }
            try write(yaml)
            let skipped = diagnostics.filter(\.skipped).count
            let errors = diagnostics.filter { $0.severity == .error }.count
            let descriptions = banks.map(\.descriptions).reduce(0, +)
            FileOutput.standardOutput.write("\(out): \(Self.summary(assessment, descriptions: descriptions)); \(skipped) skipped, \(errors) error\(errors == 1 ? "" : "s")\n")
        }
    }

    /// `21 questions (choice 5, multiple 2, true_false 5)`, and the descriptions kept as
    /// section instructions (Moodle counts each as a question of its own).
    static func summary(_ a: Assessment, descriptions kept: Int) -> String {
        // The counts only: a summary's fingerprint would cost a large bank a tenth of its import.
        let counts = AssessmentSummary.countsByType(a).map { "\($0.0.rawValue) \($0.1)" }
        let n = a.itemCount
        let descriptions = kept == 0 ? "" : " and \(kept) description\(kept == 1 ? "" : "s") (as section instructions)"
        return "wrote \(n) question\(n == 1 ? "" : "s") (\(counts.joined(separator: ", ")))\(descriptions)"
    }

    /// The title defaults to a lone QTI test's own, else the input file's name.
    func options(_ banks: [ImportedBank]) -> Importer.Options {
        let outName = BankPaths.stem(out)
        let assessmentID = id ?? IdentifierMaker.slug(outName).nonEmpty ?? "imported"
        let defaultTitle = files.count == 1 ? banks.first?.title ?? BankPaths.stem(files[0]) : "Imported questions"
        let cleanTitle = ImportText.clean(title ?? defaultTitle, multiLine: false)
        return Importer.Options(id: assessmentID, title: cleanTitle.isEmpty ? "Imported questions" : cleanTitle,
                                timeLimit: timeLimit?.seconds)
    }

    /// One input, read whole before anything is converted: an unreadable file stops the run (66).
    enum Input {
        case file(path: String, bytes: [UInt8], format: ImportFormat)
        case folder(BankFolder)
    }

    /// Zip packages may be larger than text banks; both are read with a cap.
    static let maximumPackageBytes = 64 * 1024 * 1024

    func readInput(_ path: String) throws(CarrelFailure) -> Input {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CarrelFailure(status: .cannotOpenInput, message: "cannot open \(path): \(String(cString: strerror(errno))); check the path and permissions")
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            guard format == nil || format == .qti else {
                throw CarrelFailure(status: .cannotOpenInput, message: "\(path) is a folder; only a QTI package can be a folder")
            }
            do {
                let folder = try BankFolder(root: path, display: path)
                guard BankPaths.hasManifest(folder.paths) else {
                    throw CarrelFailure(status: .cannotOpenInput, message: "\(path) is a folder without imsmanifest.xml; name a bank file or a QTI package")
                }
                return .folder(folder)
            } catch let refusal as ImportRefusal {
                throw CarrelFailure(status: .invalidAssessment, message: "\(refusal.description); nothing was written")
            } catch let failure as CarrelFailure {
                throw failure
            } catch {
                throw CarrelFailure(status: .cannotOpenInput, message: "cannot read \(path): \(error)")
            }
        }
        let loaded = try AssessmentFile.load(path, limit: Self.maximumPackageBytes)
        if loaded.bytes.count > Self.maximumPackageBytes {
            throw CarrelFailure(status: .invalidAssessment, message: "\(path) is larger than \(Self.maximumPackageBytes / 1024 / 1024) MiB; no question bank is that large")
        }
        guard let kind = format?.format ?? ImportFormat.guess(name: path, bytes: loaded.bytes) else {
            throw CarrelFailure(status: .invalidAssessment, message: "cannot tell the format of \(path); give --format moodle, gift, aiken, cloze or qti")
        }
        return .file(path: path, bytes: loaded.bytes, format: kind)
    }

    /// A file refused as unsafe stops the run: nothing is written (65).
    func convert(_ input: Input) throws(CarrelFailure) -> ImportedBank {
        do {
            return try read(input)
        } catch {
            throw CarrelFailure(status: .invalidAssessment, message: "\(error.description.clippedForMessage(limit: 300)); nothing was written")
        }
    }

    func read(_ input: Input) throws(ImportRefusal) -> ImportedBank {
        switch input {
        case let .folder(folder):
            return try QTIReader.readPackage(folder, name: folder.display)
        case let .file(path, bytes, .qti):
            // An item or a test may name files beside it; a zip holds all it names, so the
            // folder it sits in (a Downloads folder, say) is not walked.
            let parent = (path as NSString).deletingLastPathComponent
            // try?: a folder that cannot be listed only means no file beside the item is found,
            // which the item's reader reports as a missing asset or item.
            let folder = ZipPackage.isZip(bytes) ? nil : try? BankFolder(root: parent.isEmpty ? "." : parent, display: parent)
            return try QTIReader.read(bytes: bytes, file: path, folder: folder, path: (path as NSString).lastPathComponent)
        case let .file(path, bytes, format):
            return try Importer.readText(bytes, file: path, format: format)
        }
    }

    /// Atomically, mode 0600, never through a symbolic link, never over one of the inputs.
    func write(_ yaml: String) throws(CarrelFailure) {
        var target = stat()
        if stat(out, &target) == 0 {
            for file in files {
                var source = stat()
                if stat(file, &source) == 0 && source.st_dev == target.st_dev && source.st_ino == target.st_ino {
                    throw CarrelFailure(status: .usage, message: "--out \(out) is one of the files being imported; choose another output file")
                }
            }
        }
        do {
            try SecureFiles.writeAtomically(Data(yaml.utf8), to: out)
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "cannot write \(error.description); choose another --out")
        }
    }
}

/// Names taken from paths, for defaults.
enum BankPaths {
    /// `banks/week 1.gift` → `week 1`.
    static func stem(_ path: String) -> String {
        let last = (path as NSString).lastPathComponent
        let stem = (last as NSString).deletingPathExtension
        return stem.isEmpty ? last : stem
    }

    static func hasManifest(_ paths: Set<String>) -> Bool {
        paths.contains { $0 == "imsmanifest.xml" || $0.hasSuffix("/imsmanifest.xml") }
    }
}
