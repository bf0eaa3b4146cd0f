/// Checks raw bytes before YAML sees them: size, UTF-8 and a byte-order mark.
public enum SourceText {
    /// The text, or why it was refused. Not a `Result`: the first `Result` of a new failure
    /// type costs a launch a search of the program's conformances (Benchmarks/README.md).
    public enum Decoded: Sendable {
        case success(String)
        case failure(Diagnostic)
    }

    /// Files larger than this are refused before parsing.
    public static let maximumBytes = 16 * 1024 * 1024

    /// The decoded text, or one diagnostic saying where the bytes stop being acceptable.
    /// `fileSize` is the size on disk when the caller read only the first bytes of a large file.
    public static func decode(_ bytes: [UInt8], file: String, fileSize: Int? = nil) -> Decoded {
        let size = max(bytes.count, fileSize ?? 0)
        if size > maximumBytes {
            return .failure(Diagnostic(
                file: file, line: 1, column: 1,
                message: "file is \(megabytes(size)) MiB; assessment files are limited to 16 MiB"))
        }
        var body = bytes[...]
        if body.starts(with: [0xFF, 0xFE]) || body.starts(with: [0xFE, 0xFF]) {
            return .failure(Diagnostic(
                file: file, line: 1, column: 1,
                message: "the file is UTF-16 (Windows calls it \"Unicode\"); save it as UTF-8"))
        }
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        // One pass over the bytes when they are valid, the usual case: the standard library
        // validates as it copies. Only a refused file is walked again, to say where.
        if let text = String(validating: body, as: UTF8.self) { return .success(text) }
        guard let bad = firstInvalidUTF8(body) else {
            return .failure(Diagnostic(file: file, line: 1, column: 1,
                                       message: "the file is not valid UTF-8; save it as UTF-8"))
        }
        let (line, column) = position(ofByte: bad, in: body)
        let hex = String(body[bad], radix: 16, uppercase: true)
        return .failure(Diagnostic(
            file: file, line: line, column: column,
            message: "byte 0x\(hex) is not valid UTF-8; save the file as UTF-8"))
    }

    private static func megabytes(_ count: Int) -> String {
        let tenths = (count * 10) / (1024 * 1024)
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// Index of the first byte that does not start or continue a well-formed UTF-8 sequence.
    static func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int? {
        var i = bytes.startIndex
        let end = bytes.endIndex
        while i < end {
            let b = bytes[i]
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch b {
            case 0x00...0x7F: i += 1; continue
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return i
            }
            if i + length > end { return i }
            for k in 1..<length {
                let c = bytes[i + k]
                let (lo, hi) = k == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
                if c < lo || c > hi { return i }
            }
            i += length
        }
        return nil
    }

    /// 1-based line and column (in Unicode scalars) of a byte offset in valid UTF-8 before it.
    static func position(ofByte offset: Int, in bytes: ArraySlice<UInt8>) -> (Int, Int) {
        var line = 1, column = 1
        var i = bytes.startIndex
        while i < offset {
            let b = bytes[i]
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return (line, column)
    }
}
