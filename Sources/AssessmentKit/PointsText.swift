/// Points as people write them: `3`, `2.5`, `0.3333`.
public enum PointsText {
    public static func format(_ points: Double) -> String {
        let rounded = (points * 10_000).rounded() / 10_000
        if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int(rounded)) }
        var s = String(rounded)
        if s.contains("e") { return s }
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }
}
