/// Suggestions for misspelt keys and values.
enum DidYouMean {
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        var best: (String, Int)? = nil
        for candidate in candidates {
            let d = distance(lowered, candidate.lowercased())
            if let current = best, current.1 <= d { continue }
            best = (candidate, d)
        }
        guard let (candidate, d) = best else { return nil }
        let allowed = max(1, min(3, candidate.count / 3))
        return d <= allowed ? candidate : nil
    }

    /// ` (did you mean "x"?)` or nothing.
    static func hint(for word: String, among candidates: [String]) -> String {
        suggestion(for: word, among: candidates).map { "; did you mean `\($0)`?" } ?? ""
    }

    /// Levenshtein distance over Characters; inputs here are short keys and choices.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}
