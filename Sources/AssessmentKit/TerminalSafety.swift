/// Characters that could drive a terminal or make text read differently from how it is
/// stored: the validator refuses them in assessment text, and the screen never draws them.
public enum TerminalSafety {
    /// C0 controls, DEL and C1 controls (ESC and CSI among them).
    public static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || s.value == 0x7F || (0x80...0x9F).contains(s.value)
    }

    /// Bidirectional embeddings, overrides and isolates.
    public static func isBidiControl(_ s: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(s.value) || (0x2066...0x2069).contains(s.value)
    }
}
