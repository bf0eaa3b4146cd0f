import AssessmentKit

/// Numbers as Moodle's Cloze reads them: `-?(([0-9]+[.,]?[0-9]*|[.,][0-9]+)([eE][-+]?[0-9]+)?)`,
/// a comma standing for the decimal point.
enum ClozeNumber {
    struct Failure: Error, Sendable {
        var reason: String
    }

    /// `%…%` contents: `-?[0-9]+([.,][0-9]*)?`.
    static func isCredit(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        if scalars.first == "-" { scalars = scalars.dropFirst() }
        let digits = scalars.prefix { ("0"..."9").contains($0) }
        guard !digits.isEmpty else { return false }
        scalars = scalars.dropFirst(digits.count)
        guard let mark = scalars.first else { return true }
        guard mark == "." || mark == "," else { return false }
        return scalars.dropFirst().allSatisfy { ("0"..."9").contains($0) }
    }

    /// True for a number Moodle's pattern accepts.
    static func isNumber(_ text: String) -> Bool {
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "-" { scalars.removeFirst() }
        var i = 0
        var digitsBefore = 0
        while i < scalars.count, ("0"..."9").contains(scalars[i]) { i += 1; digitsBefore += 1 }
        var digitsAfter = 0
        if i < scalars.count, scalars[i] == "." || scalars[i] == "," {
            i += 1
            while i < scalars.count, ("0"..."9").contains(scalars[i]) { i += 1; digitsAfter += 1 }
        }
        guard digitsBefore + digitsAfter > 0 else { return false }
        if i < scalars.count, scalars[i] == "e" || scalars[i] == "E" {
            i += 1
            if i < scalars.count, scalars[i] == "-" || scalars[i] == "+" { i += 1 }
            var exponent = 0
            while i < scalars.count, ("0"..."9").contains(scalars[i]) { i += 1; exponent += 1 }
            guard exponent > 0 else { return false }
        }
        return i == scalars.count
    }

    /// The value of a number Moodle's pattern accepts (its comma a decimal point).
    static func value(_ text: String) -> Double? {
        let point = String(text.map { $0 == "," ? "." : $0 })
        guard let v = Double(point), v.isFinite else { return nil }
        return v
    }

    /// `3.14`, `3,14`, `3.14:0.01`.
    static func answer(_ written: String) -> Result<NumericAnswer, Failure> {
        let parts = written.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            .map { String($0).trimmed() }
        for (n, part) in parts.enumerated() {
            guard isNumber(part), value(part) != nil else {
                if n == 1 {
                    return .failure(Failure(reason: "the margin in “\(written.clippedForMessage)” is not a number; write =3.14:0.01"))
                }
                return .failure(Failure(reason: "“\(written.clippedForMessage)” is not a number; a NUMERICAL answer is written =3.14 or =3.14:0.01"))
            }
            if NumericText.isAmbiguousGrouping(part) {
                return .failure(Failure(reason: "“\(part.clippedForMessage)” could be a whole number with a thousands separator or a decimal; write it without the comma, or with a point for a decimal"))
            }
        }
        let value = ClozeNumber.value(parts[0]) ?? 0
        let margin = parts.count == 2 ? abs(ClozeNumber.value(parts[1]) ?? 0) : 0
        return .success(.value(value, tolerance: margin))
    }
}
