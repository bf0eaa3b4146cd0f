import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SharedStore
import TerminalUI

/// JSON for people and scripts: sorted snake_case keys, and every control, bidirectional
/// or invisible character inside a string escaped as `\uXXXX` (the same data, nothing that
/// could act on a terminal).
enum JSONText {
    static func pretty<T: Encodable>(_ value: T) throws(CarrelFailure) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        do {
            return TerminalSafety.escapingJSON(String(decoding: try encoder.encode(value), as: UTF8.self)) + "\n"
        } catch {
            throw CarrelFailure(status: .internalError, message: "cannot write the results as JSON: \(error)")
        }
    }
}
