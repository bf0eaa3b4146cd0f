/// Durations as teachers write them: `90s`, `10m`, `1h30m`, `2h15m30s`.
public enum DurationText {
    /// Seconds, or nil when the text is not a duration with units.
    public static func parse(_ text: String) -> Int? {
        var total = 0
        var digits = ""
        var lastUnitRank = 0
        var sawUnit = false
        for ch in text.trimmingSpaces() {
            if let d = ch.wholeNumberValue, ch.isASCII {
                digits.append(Character(String(d)))
                if digits.count > 6 { return nil }
                continue
            }
            let (rank, factor): (Int, Int)
            switch ch {
            case "h": (rank, factor) = (1, 3600)
            case "m": (rank, factor) = (2, 60)
            case "s": (rank, factor) = (3, 1)
            default: return nil
            }
            // Units appear once each, largest first.
            guard let value = Int(digits), rank > lastUnitRank else { return nil }
            total += value * factor
            lastUnitRank = rank
            digits = ""
            sawUnit = true
        }
        guard sawUnit, digits.isEmpty else { return nil }
        return total
    }

    /// `1h30m`, `10m`, `45s`, `0s`: the same shape `parse` reads.
    public static func format(_ seconds: Int) -> String {
        let s = max(0, seconds)
        let h = s / 3600, m = (s % 3600) / 60, sec = s % 60
        var out = ""
        if h > 0 { out += "\(h)h" }
        if m > 0 { out += "\(m)m" }
        if sec > 0 || out.isEmpty { out += "\(sec)s" }
        return out
    }
}

extension String {
    func trimmingSpaces() -> Substring {
        // Text whose first and last bytes are printable ASCII other than a space has nothing
        // to trim (the short way): its first Character starts with that byte, and its last
        // is that byte alone or after a prepended mark, neither of them white space.
        let bytes = utf8
        if let first = bytes.first, let last = bytes.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F {
            return self[...]
        }
        return trimmingSpacesOfAnyText()
    }

    /// `trimmingSpaces` the long way, for any text.
    func trimmingSpacesOfAnyText() -> Substring {
        var sub = self[...]
        while let f = sub.first, f.isWhitespace { sub = sub.dropFirst() }
        while let l = sub.last, l.isWhitespace { sub = sub.dropLast() }
        return sub
    }
}
