import AssessmentKit
import Foundation

/// Ids from whatever names a bank gives (`Q 1: Capitals`, `choice_multiple`, `Überblick`):
/// lower-case ASCII letters, digits and `-`, unique within the assessment.
public struct IdentifierMaker: Sendable {
    private var used: Set<String> = []
    /// The next suffix to try per base, so a thousand questions with one name stay linear.
    private var next: [String: Int] = [:]

    public init() {}

    /// An id close to `name`, else `fallback`, made unique with `-2`, `-3` ….
    public mutating func make(from name: String?, fallback: String) -> String {
        let base = Self.slug(name ?? "").nonEmpty ?? Self.slug(fallback).nonEmpty ?? "q"
        var candidate = base
        var n = next[base] ?? 2
        while used.contains(candidate) || !Identifier.isValid(candidate) {
            let suffix = "-\(n)"
            candidate = String(base.prefix(64 - suffix.count)) + suffix
            n += 1
        }
        next[base] = n
        used.insert(candidate)
        return candidate
    }

    /// Reserves an id already taken (an explicit `--id`).
    public mutating func reserve(_ id: String) { used.insert(id) }

    /// `Week 1: Capitals` → `week-1-capitals` (at most 48 characters; empty when nothing is left).
    public static func slug(_ text: String) -> String {
        // ASCII has nothing to fold that the loop below does not lower itself.
        let folded = text.utf8.allSatisfy { $0 < 0x80 }
            ? text : text.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
        var out = ""
        var dash = false
        for s in folded.unicodeScalars {
            let c = ("A"..."Z").contains(s) ? Unicode.Scalar(s.value + 32) ?? s : s
            if ("a"..."z").contains(c) || ("0"..."9").contains(c) {
                if dash && !out.isEmpty { out += "-" }
                dash = false
                out.unicodeScalars.append(c)
                if out.unicodeScalars.count >= 48 { break }
            } else {
                dash = true
            }
        }
        return out
    }
}

extension String {
    /// Nil for the empty string.
    public var nonEmpty: String? { isEmpty ? nil : self }
}
