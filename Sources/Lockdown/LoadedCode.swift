#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLinux
import Foundation

/// Code in this process that the executable did not ask for: a library preloaded with
/// LD_PRELOAD, an LD_AUDIT module, a library substituted through LD_LIBRARY_PATH, or code
/// that is not backed by a file at all — found by what is mapped, not by what the
/// environment says (an injected library can unset its own variable).
///
/// The rule: every file mapped executable into the process must be one of the objects the
/// dynamic loader maps for this executable on its own (`ld.so --list EXE` run with an empty
/// environment), the executable or the loader. Objects the process loads later itself (NSS
/// modules, for example) are not counted: the comparison uses the mappings captured when
/// `recordAtStart()` ran, first thing in `main`.
public enum LoadedCode {
    /// One executable file mapping from /proc/self/maps.
    public struct Mapping: Sendable, Hashable {
        public var path: String
        public var major: UInt32
        public var minor: UInt32
        public var inode: UInt64
    }

    /// The executable mappings when the process started (see `recordAtStart`); nil where
    /// /proc is not available.
    static let atStart: [Mapping]? = currentMappings()

    /// Captures the mappings now; call it first in `main`, before anything can load a
    /// library of its own.
    public static func recordAtStart() {
        _ = atStart
    }

    /// Files (and anonymous memory) mapped executable in this process right now.
    public static func currentMappings() -> [Mapping]? {
        guard let data = SecureFiles.readSmallFile("/proc/self/maps", limit: 8 << 20) else { return nil }
        return data.withUnsafeBytes { parseMaps(bytes: $0.bindMemory(to: UInt8.self)) }
    }

    /// Parses /proc/PID/maps lines (`start-end perms offset major:minor inode path`),
    /// keeping executable ones. Kernel pseudo-mappings ([vdso], [vsyscall]…) are left out;
    /// executable memory with no file behind it is kept with an empty path.
    static func parseMaps(_ text: String) -> [Mapping] {
        var text = text
        return text.withUTF8 { parseMaps(bytes: $0) }
    }

    /// The same, over the file's bytes: this runs at every launch, where splitting each line
    /// into fields and strings cost over a million instructions. A few dozen files at most:
    /// a linear look for repeats costs less than a set's first use.
    static func parseMaps(bytes: UnsafeBufferPointer<UInt8>) -> [Mapping] {
        var out: [Mapping] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            if let mapping = mapping(UnsafeBufferPointer(rebasing: bytes[start..<end])), !out.contains(mapping) {
                out.append(mapping)
            }
            start = end + 1
        }
        return out
    }

    /// One line's executable mapping (`start-end perms offset major:minor inode path`); nil for
    /// a line that is not executable, not of that form, or a kernel pseudo-mapping.
    static func mapping(_ line: UnsafeBufferPointer<UInt8>) -> Mapping? {
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        var i = 0
        /// The next field, its blanks before it skipped; nil at the end of the line.
        func field() -> Range<Int>? {
            while i < line.count && line[i] == space { i += 1 }
            guard i < line.count else { return nil }
            let first = i
            while i < line.count && line[i] != space { i += 1 }
            return first..<i
        }
        func number(_ range: Range<Int>, radix: UInt64) -> UInt64? {
            // An inode is printed in decimal up to 2^64 - 1 (20 digits; a FUSE file system
            // chooses its own): every digit is read, an overflow refused.
            guard !range.isEmpty, range.count <= 20 else { return nil }
            var value: UInt64 = 0
            for byte in line[range] {
                let digit: UInt64
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt64(byte - UInt8(ascii: "A") + 10)
                default: return nil
                }
                let (times, overflow) = value.multipliedReportingOverflow(by: radix)
                let (sum, carry) = times.addingReportingOverflow(digit)
                guard !overflow, !carry else { return nil }
                value = sum
            }
            return value
        }
        guard field() != nil, let perms = field(), line[perms].contains(UInt8(ascii: "x")) else { return nil }
        // Executable, but not of the form the kernel writes: kept as a mapping no expected
        // object matches, so that it is reported rather than passed over.
        let unreadable = Mapping(path: "an executable mapping Carrel cannot read: " + String(decoding: line, as: UTF8.self),
                                 major: .max, minor: .max, inode: .max)
        guard field() != nil, let device = field(), let inodeField = field(),
              let colon = line[device].firstIndex(of: UInt8(ascii: ":")),
              let major = number(device.lowerBound..<colon, radix: 16), major <= UInt64(UInt32.max),
              let minor = number((colon + 1)..<device.upperBound, radix: 16), minor <= UInt64(UInt32.max),
              let inode = number(inodeField, radix: 10) else { return unreadable }
        // The path is padded to a column with spaces (tabs are not written there); its own
        // spaces are kept.
        var first = i, last = line.count
        while first < last && (line[first] == space || line[first] == tab) { first += 1 }
        while last > first && (line[last - 1] == space || line[last - 1] == tab) { last -= 1 }
        let path = String(decoding: UnsafeBufferPointer(rebasing: line[first..<last]), as: UTF8.self)
        if path.hasPrefix("[") { return nil }
        return Mapping(path: path, major: UInt32(major), minor: UInt32(minor), inode: inode)
    }

    /// What the loader maps for `executable` with no environment at all: the resolved
    /// paths printed by `INTERPRETER --list EXECUTABLE`.
    static func loaderList(interpreter: String, executable: String) -> [String]? {
        let listing = ProcessRunner.run(interpreter, ["--list", executable], environment: [:], timeout: 10)
        guard listing.status == 0 else { return nil }
        return parseLoaderList(listing.output)
    }

    /// `\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)` and `\t/lib64/ld-linux-x86-64.so.2 (0x…)`.
    static func parseLoaderList(_ text: String) -> [String] {
        var paths: [String] = []
        for line in text.split(separator: "\n") {
            var rest = Substring(line.trimmingCharacters(in: .whitespaces))
            if let arrow = rest.range(of: "=> ") { rest = rest[arrow.upperBound...] }
            guard rest.hasPrefix("/") else { continue }
            let path = rest.range(of: " (0x").map { String(rest[..<$0.lowerBound]) } ?? String(rest)
            paths.append(path)
        }
        return paths
    }

    /// The dynamic loader of this process: the file mapped at the auxiliary vector's AT_BASE.
    static func interpreterPath() -> String? {
        let base = UInt(carrel_loader_base())
        guard base != 0, let data = SecureFiles.readSmallFile("/proc/self/maps", limit: 8 << 20) else { return nil }
        return data.withUnsafeBytes { path(containing: base, maps: $0.bindMemory(to: UInt8.self)) }
    }

    /// The path of the mapping of /proc/PID/maps that holds `address`, read as bytes (this
    /// runs at every launch; splitting the text into strings cost two million instructions).
    static func path(containing address: UInt, maps bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), newline = UInt8(ascii: "\n")
        func hex(_ i: inout Int, upTo stop: UInt8) -> UInt? {
            var value: UInt = 0, digits = 0
            while i < bytes.count, bytes[i] != stop {
                let byte = bytes[i] | 0x20
                let digit: UInt
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt(byte - UInt8(ascii: "a") + 10)
                default: return nil
                }
                guard digits < 16 else { return nil }
                value = value << 4 | digit
                digits += 1
                i += 1
            }
            return digits > 0 ? value : nil
        }
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != newline { end += 1 }
            defer { start = end + 1 }
            var i = start
            guard let low = hex(&i, upTo: UInt8(ascii: "-")), i < end else { continue }
            i += 1
            guard let high = hex(&i, upTo: space), i < end, low <= address && address < high else { continue }
            // Four more fields (permissions, offset, device, inode), then the path, padded.
            for _ in 0..<4 {
                while i < end && bytes[i] == space { i += 1 }
                while i < end && bytes[i] != space { i += 1 }
            }
            var last = end
            while i < last && (bytes[i] == space || bytes[i] == tab) { i += 1 }
            while last > i && (bytes[last - 1] == space || bytes[last - 1] == tab) { last -= 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<last]), as: UTF8.self)
        }
        return nil
    }

    /// A file's identity as /proc/PID/maps prints it.
    static func identity(_ path: String) -> (path: String, major: UInt32, minor: UInt32, inode: UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let dev = UInt64(info.st_dev)
        let major = UInt32(truncatingIfNeeded: ((dev >> 8) & 0xFFF) | ((dev >> 32) & ~UInt64(0xFFF)))
        let minor = UInt32(truncatingIfNeeded: (dev & 0xFF) | ((dev >> 12) & ~UInt64(0xFF)))
        let canonical = realpath(path, nil).map { pointer -> String in
            defer { free(pointer) }
            return String(cString: pointer)
        } ?? path
        return (canonical, major, minor, UInt64(info.st_ino))
    }

    /// Descriptions of the injected code found in `mappings`, given the expected files.
    static func unexpected(_ mappings: [Mapping], expected: [String]) -> [String] {
        let known = expected.compactMap(identity)
        let paths = Set(known.map(\.path))
        var found: [String] = []
        for m in mappings {
            if m.path.isEmpty {
                if !found.contains("executable memory not backed by any file") { found.append("executable memory not backed by any file") }
                continue
            }
            let sameFile = known.contains { $0.major == m.major && $0.minor == m.minor && $0.inode == m.inode }
            if !sameFile && !paths.contains(m.path) && !found.contains(m.path) { found.append(m.path) }
        }
        return found
    }

    /// The injected objects of this process (paths, as mapped), or nil when it cannot be
    /// told (no /proc, no dynamic loader, an executable that was deleted since it started).
    public static func injected() -> [String]? {
        // Unknowable here means "not judged" (nil), never "clean": the caller keeps the
        // environment check, and no /proc or no loader also means no LD_PRELOAD to fear.
        guard let unexpectedAtStart else { return nil }
        var found = unexpectedAtStart
        if let extra = hiddenNamespaceObjects(), extra > 0 {
            found.append("\(extra) object\(extra == 1 ? "" : "s") loaded in a separate linker namespace (an audit module)")
        }
        return found
    }

    /// The files mapped at start that the loader would not map on its own, worked out once: the
    /// mappings judged are those captured at start, so asking the loader again (a process of
    /// its own) could only say the same. A seat waiting for the proctor's start asks before
    /// the start comes, and its begin does not wait for the loader.
    static let unexpectedAtStart: [String]? = {
        guard let mappings = atStart,
              let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
              !executable.hasSuffix(" (deleted)"),
              let interpreter = interpreterPath(),
              let listed = loaderList(interpreter: interpreter, executable: executable)
        else { return nil }
        return unexpected(mappings, expected: listed + [executable, interpreter])
    }()

    /// Objects loaded but not listed by `dl_iterate_phdr`, which walks only the main
    /// namespace: an LD_AUDIT module and its own copy of libc live in another one, and
    /// Carrel never creates one. The loader's add/remove counters include them.
    static func hiddenNamespaceObjects() -> Int? {
        let tally = carrel_link_tally()
        guard tally.listed > 0, tally.adds >= tally.subs else { return nil }
        return max(0, Int(tally.adds - tally.subs) - Int(tally.listed))
    }
}

