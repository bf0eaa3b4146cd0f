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
        if word.count >= 3, let prefixed = candidates.first(where: { $0.lowercased().hasPrefix(lowered) }) {
            return prefixed
        }
        // One or two letters are too short to guess from.
        guard let (candidate, d) = best, word.count >= 3, candidate.count >= 3 else { return nil }
        let allowed = max(1, min(3, candidate.count / 3))
        return d <= allowed ? candidate : nil
    }

    /// ` (did you mean "x"?)` or nothing.
    static func hint(for word: String, among candidates: [String]) -> String {
        suggestion(for: word, among: candidates).map { "; did you mean `\($0)`?" } ?? ""
    }

    /// Edit distance where swapping two neighbours counts as one edit (`titel` → `title`).
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[x.count][y.count]
    }
}
