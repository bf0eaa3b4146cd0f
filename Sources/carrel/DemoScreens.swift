import AssessmentKit
import Foundation
import Localization
import Lockdown
import SessionKit
import TerminalUI

/// `carrel demo --catalog FILE --screens FILE`: a translator reads every screen in their
/// language, in place, with no exam (docs/translating.md; scripts/review-language).
extension DemoCommand {
    /// The language of the demo: `--language`, else the language of `--catalog`, else the
    /// environment's. A catalog is read (at most 4 MiB, never through a symlink) and checked first.
    func chosenLanguage() throws(CarrelFailure) -> Language {
        var added: Language?
        if let catalog {
            guard let data = try Self.readCatalog(catalog) else {
                throw CarrelFailure(status: .cannotOpenInput, message: "\(catalog): no such file")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw CarrelFailure(status: .invalidAssessment, message: "\(catalog): the catalog is not UTF-8")
            }
            do {
                added = try Catalog.add(text)
            } catch {
                throw CarrelFailure(status: .invalidAssessment, message: "\(catalog): \(error)")
            }
        }
        return try LanguagePick.choose(option: language ?? added?.rawValue).language
    }

    static func readCatalog(_ path: String) throws(CarrelFailure) -> Data? {
        do {
            return try SecureFiles.readStateFile(path, limit: 4 << 20)
        } catch {
            throw CarrelFailure(status: .cannotOpenInput, message: "\(error)")
        }
    }

    /// Every screen at `--size`, to a file (0600, never through a symlink) or standard output.
    func writeScreens(to path: String, language: Language) throws(CarrelFailure) {
        let parts = size.lowercased().split(whereSeparator: { $0 == "x" || $0 == "×" }).compactMap { Int($0) }
        guard parts.count == 2, (40...400).contains(parts[0]), (12...200).contains(parts[1]) else {
            throw CarrelFailure(status: .usage, message: "--size \(size): give columns×rows, such as 80x24 (40 to 400 by 12 to 200)")
        }
        let assessment = try tourAssessment()
        let text = ScreenTour(cast: .sample(for: assessment), language: language).text(width: parts[0], height: parts[1])
        if path == "-" {
            FileOutput.standardOutput.write(text)
            return
        }
        do {
            try SecureFiles.writeAtomically(Data(text.utf8), to: path)
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "\(error)")
        }
        FileOutput.standardError.write("Wrote every screen in \(language.rawValue) (\(language.name)) at \(parts[0])×\(parts[1]) to \(path)\n")
    }

    /// The workshop test (`--workshop`, else Assessments/workshop.yaml), else the demo's own.
    func tourAssessment() throws(CarrelFailure) -> Assessment {
        let path = workshop ?? "Assessments/workshop.yaml"
        if let data = SecureFiles.readSmallFile(path, limit: 16 << 20) {
            let read = AssessmentReader.read(bytes: [UInt8](data), file: path)
            guard let assessment = read.assessment else {
                throw CarrelFailure(status: .invalidAssessment, message: "\(path) does not validate: run carrel validate \(path)")
            }
            return assessment
        }
        if workshop != nil { throw CarrelFailure(status: .cannotOpenInput, message: "\(path): no such file") }
        guard let assessment = AssessmentReader.read(text: DemoApp.sessionYAML, file: "(demo)").assessment else {
            throw CarrelFailure(status: .internalError, message: "the built-in demo session does not validate")
        }
        return assessment
    }
}
