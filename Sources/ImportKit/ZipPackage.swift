import Foundation
import ZIPFoundation

/// The files of a QTI content package: a zip read in memory, or a folder the caller reads.
public protocol PackageFiles {
    /// Every file's package path (`items/q1.xml`), for listing and for missing-asset checks.
    var paths: Set<String> { get }
    /// The bytes of one file, at most `limit` of them; nil when it cannot be read.
    func read(_ path: String, limit: Int) throws(ImportRefusal) -> [UInt8]?
    /// How diagnostics name a file of the package: `pack.zip:items/q1.xml`, `folder/items/q1.xml`.
    func label(_ path: String) -> String
}

/// A zip package read in memory with bounded work: entry count, declared and actual sizes and
/// compression ratios are capped, and any path that is absolute or climbs out with `..` makes
/// the whole package refused before anything in it is read.
public final class ZipPackage: PackageFiles {
    public static let maximumEntries = 10_000
    public static let maximumTotalBytes: UInt64 = 256 * 1024 * 1024
    public static let maximumRatio: UInt64 = 200
    /// Entries smaller than this may compress as well as they like (a page of spaces does).
    static let ratioFloor: UInt64 = 1024 * 1024

    let name: String
    let archive: Archive
    let entries: [String: Entry]
    public let paths: Set<String>
    private var budget: UInt64 = ZipPackage.maximumTotalBytes

    public init(bytes: [UInt8], name: String) throws(ImportRefusal) {
        self.name = name
        do {
            archive = try Archive(data: Data(bytes), accessMode: .read)
        } catch {
            throw ImportRefusal(file: name, reason: "this is not a zip archive that can be read")
        }
        var entries: [String: Entry] = [:]
        var declared: UInt64 = 0
        var count = 0
        for entry in archive {
            count += 1
            guard count <= Self.maximumEntries else {
                throw ImportRefusal(file: name, reason: "the package has more than \(Self.maximumEntries) files")
            }
            guard let path = PackagePath.normalised(entry.path) else {
                throw ImportRefusal(file: name, reason: "the package holds the path “\(entry.path.clippedForMessage)”, which leads outside it")
            }
            let size = entry.uncompressedSize, packed = max(1, entry.compressedSize)
            declared = declared &+ size
            guard declared <= Self.maximumTotalBytes, size <= Self.maximumTotalBytes else {
                throw ImportRefusal(file: name, reason: "the package unpacks to more than \(Self.maximumTotalBytes / 1024 / 1024) MiB")
            }
            if size > Self.ratioFloor && size / packed > Self.maximumRatio {
                throw ImportRefusal(file: name, reason: "“\(path.clippedForMessage)” unpacks to \(size / packed) times its packed size; this looks like a zip bomb")
            }
            if entry.type == .file && entries[path] == nil { entries[path] = entry }
        }
        self.entries = entries
        paths = Set(entries.keys)
    }

    public func label(_ path: String) -> String { "\(name):\(path)" }

    /// Reads one file, stopping as soon as it is larger than declared or than `limit`.
    public func read(_ path: String, limit: Int) throws(ImportRefusal) -> [UInt8]? {
        guard let entry = entries[path] else { return nil }
        let cap = min(UInt64(limit), entry.uncompressedSize, budget)
        if entry.uncompressedSize > UInt64(limit) {
            throw ImportRefusal(file: "\(name):\(path)", reason: "the file is larger than \(limit / 1024 / 1024) MiB")
        }
        var out: [UInt8] = []
        out.reserveCapacity(Int(cap))
        do {
            _ = try archive.extract(entry, bufferSize: 64 * 1024, skipCRC32: false) { chunk in
                guard UInt64(out.count + chunk.count) <= cap else { throw Overflow() }
                out.append(contentsOf: chunk)
            }
        } catch is Overflow {
            throw ImportRefusal(file: "\(name):\(path)", reason: "the file unpacks to more than its declared size; this looks like a zip bomb")
        } catch {
            throw ImportRefusal(file: "\(name):\(path)", reason: "the file cannot be unpacked (\(error))")
        }
        budget -= UInt64(out.count)
        return out
    }

    struct Overflow: Error {}
}

/// Files held in memory (tests, fuzzing, and callers that read a folder themselves).
public struct MemoryPackage: PackageFiles {
    public let name: String
    public let files: [String: [UInt8]]
    public var paths: Set<String> { Set(files.keys) }

    public init(name: String, files: [String: [UInt8]]) {
        self.name = name
        self.files = files
    }

    public func read(_ path: String, limit: Int) throws(ImportRefusal) -> [UInt8]? {
        guard let bytes = files[path] else { return nil }
        guard bytes.count <= limit else { throw ImportRefusal(file: label(path), reason: "the file is larger than \(limit / 1024 / 1024) MiB") }
        return bytes
    }

    public func label(_ path: String) -> String { name.isEmpty ? path : "\(name)/\(path)" }
}
