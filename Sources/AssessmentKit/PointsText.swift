/// Points as people read them: `3`, `2.5`, `0.33` (results keep the exact value).
public enum PointsText {
    public static func format(_ points: Double) -> String {
        let rounded = (points * 100).rounded() / 100
        if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int(rounded)) }
        var s = String(rounded)
        if s.contains("e") { return s }
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }
}
