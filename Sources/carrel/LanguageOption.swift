import Foundation
import Localization

/// The language a student's (or the proctor's) screens speak, chosen in this order: the
/// roster's `language` column, `--language`, the assessment's `language:` key, `LC_ALL` /
/// `LC_MESSAGES` / `LANG`, English. A language named that Carrel does not speak is an error.
enum LanguagePick {
    /// The codes, read from the catalogs compiled in: "en, fr, de, … or ko".
    static var help: String {
        let codes = Language.offered.map(\.rawValue)
        let list = codes.dropLast().joined(separator: ", ") + (codes.count > 1 ? " or " : "") + (codes.last ?? "")
        return "The language of the screens: \(list) (else the roster's, the assessment's language key, LC_ALL/LC_MESSAGES/LANG, English)."
    }

    static func choose(roster: String? = nil, option: String?, assessment: String? = nil) throws(CarrelFailure) -> LanguageChoice {
        switch LanguageChoice.resolve(roster: roster, option: option, assessment: assessment,
                                      environment: ProcessEnvironment.current) {
        case let .success(choice): return choice
        case let .failure(failure):
            throw CarrelFailure(status: failure.source == .option ? .usage : .invalidAssessment, message: failure.description)
        }
    }
}

extension LanguageChoice.Failure {
    var source: LanguageSource {
        switch self { case let .unknown(_, source): return source }
    }
}
