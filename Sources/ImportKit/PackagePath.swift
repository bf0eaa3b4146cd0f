/// Paths inside a package (a zip or a folder), as its manifest and items write them.
public enum PackagePath {
    /// `a/./b/../c.xml` → `a/c.xml`; nil for a path that is absolute or climbs out of the package.
    public static func normalised(_ path: String) -> String? {
        let unified = path.replacingBackslashes()
        guard !unified.hasPrefix("/"), !isWindowsAbsolute(unified) else { return nil }
        var parts: [Substring] = []
        for part in unified.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
                continue
            }
            parts.append(part)
        }
        return parts.joined(separator: "/")
    }

    /// `href` written in a file at `base` (a path inside the package), as a package path; nil
    /// for a link to elsewhere (a URL), an absolute path or one that leaves the package.
    public static func resolve(_ href: String, from base: String) -> String? {
        guard isLocal(href) else { return nil }
        let decoded = percentDecoded(target(of: href))
        let folder = base.split(separator: "/").dropLast().joined(separator: "/")
        return normalised(folder.isEmpty ? decoded : folder + "/" + decoded)
    }

    /// True when `href` names a file (in the package or out of it), not a web address or a
    /// place in the same file: `#top` is a place in the item itself, `//host/x.png` a web
    /// address without its scheme.
    static func isLocal(_ href: String) -> Bool {
        let decoded = percentDecoded(target(of: href))
        return !decoded.isEmpty && !hasScheme(decoded) && !decoded.hasPrefix("//")
    }

    /// `href` without its `#fragment`.
    static func target(of href: String) -> String {
        href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
    }

    static func hasScheme(_ s: String) -> Bool {
        guard let colon = s.firstIndex(of: ":") else { return false }
        let scheme = s[..<colon]
        return scheme.count > 1 && scheme.allSatisfy { $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }
    }

    static func isWindowsAbsolute(_ s: String) -> Bool {
        let c = Array(s.prefix(3))
        return c.count >= 2 && c[0].isLetter && c[1] == ":"
    }

    static func percentDecoded(_ s: String) -> String {
        guard s.contains("%") else { return s }
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.first {
            it = it.dropFirst()
            if b == UInt8(ascii: "%"), it.count >= 2,
               let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    func replacingBackslashes() -> String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\\" ? "/" : $0 }))
    }
}
