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
    public static let maximumTotalBytes = 256 * 1024 * 1024
    public static let maximumRatio = 200
    /// Entries smaller than this may compress as well as they like (a page of spaces does).
    static let ratioFloor = 1024 * 1024

    let name: String
    let bytes: [UInt8]
    let entries: [String: ZipStructure.Record]
    public let paths: Set<String>
    private var budget = ZipPackage.maximumTotalBytes

    /// Whether `bytes` start as a zip does: a local file header, or the end of an empty zip.
    public static func isZip(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06])
    }

    /// Lists the package with ZIPFoundation once its directory has been checked; nothing is unpacked yet.
    public init(bytes: [UInt8], name: String) throws(ImportRefusal) {
        self.name = name
        self.bytes = bytes
        let records: [ZipStructure.Record]
        do {
            records = try ZipStructure.check(bytes)
        } catch {
            throw ImportRefusal(file: name, reason: error.reason)
        }
        guard records.count <= Self.maximumEntries else {
            throw ImportRefusal(file: name, reason: "the package has more than \(Self.maximumEntries) files")
        }
        let archive: Archive
        do {
            archive = try Archive(data: Data(bytes), accessMode: .read)
        } catch {
            throw ImportRefusal(file: name, reason: "this is not a zip archive that can be read")
        }
        var entries: [String: ZipStructure.Record] = [:]
        var declared = 0
        var index = 0
        for entry in archive {
            guard index < records.count else { break }
            let record = records[index]
            index += 1
            guard let path = PackagePath.normalised(entry.path) else {
                throw ImportRefusal(file: name, reason: "the package holds the path “\(entry.path.clippedForMessage)”, which leads outside it")
            }
            declared += record.unpacked
            guard declared <= Self.maximumTotalBytes else {
                throw ImportRefusal(file: name, reason: "the package unpacks to more than \(Self.maximumTotalBytes / 1024 / 1024) MiB")
            }
            if record.unpacked > Self.ratioFloor && record.unpacked / max(1, record.packed) > Self.maximumRatio {
                throw ImportRefusal(file: name, reason: "“\(path.clippedForMessage)” unpacks to \(record.unpacked / max(1, record.packed)) times its packed size; this looks like a zip bomb")
            }
            if entry.type == .file && entries[path] == nil { entries[path] = record }
        }
        self.entries = entries
        paths = Set(entries.keys)
    }

    public func label(_ path: String) -> String { "\(name):\(path.clippedForMessage(limit: 200))" }

    /// Unpacks one file from its bytes in the package, stopping as soon as it is larger than
    /// declared or than `limit`, and at the end of its packed data whatever the data says.
    public func read(_ path: String, limit: Int) throws(ImportRefusal) -> [UInt8]? {
        guard let record = entries[path] else { return nil }
        guard record.unpacked <= limit else {
            throw ImportRefusal(file: label(path), reason: "the file is larger than \(limit / 1024 / 1024) MiB")
        }
        guard record.data + record.packed <= bytes.count else {
            throw ImportRefusal(file: label(path), reason: "the file's data runs past the end of the package")
        }
        let packed = bytes[record.data..<(record.data + record.packed)]
        let cap = min(record.unpacked, budget)
        var out: [UInt8] = []
        switch record.method {
        case 0:
            guard record.packed <= cap else { throw bomb(path) }
            out = Array(packed)
        case 8:
            out.reserveCapacity(cap)
            do {
                _ = try Data.decompress(size: Int64(record.packed), bufferSize: Self.chunk, skipCRC32: true,
                                        provider: Self.provider(packed), consumer: { chunk in
                    guard out.count + chunk.count <= cap else { throw Overflow() }
                    out.append(contentsOf: chunk)
                })
            } catch is Overflow {
                throw bomb(path)
            } catch {
                throw ImportRefusal(file: label(path), reason: "the file cannot be unpacked: its compressed data is damaged")
            }
        default:
            throw ImportRefusal(file: label(path), reason: "the file is packed with method \(record.method); only stored and deflated files can be read")
        }
        budget -= out.count
        return out
    }

    static let chunk = 64 * 1024

    /// Hands out the packed bytes in whole chunks (ZIPFoundation's inflater always reads a whole
    /// chunk), zeros after the end, then stops with an error: a stream that never ends cannot
    /// keep the inflater waiting for more.
    static func provider(_ packed: ArraySlice<UInt8>) -> Provider {
        { position, size in
            let start = packed.startIndex + Int(position)
            guard start < packed.endIndex || (position == 0 && packed.isEmpty) else { throw Truncated() }
            var chunk = Array(packed[start..<min(packed.endIndex, start + size)])
            if chunk.count < size { chunk += [UInt8](repeating: 0, count: size - chunk.count) }
            return Data(chunk)
        }
    }

    func bomb(_ path: String) -> ImportRefusal {
        ImportRefusal(file: label(path), reason: "the file unpacks to more than its declared size; this looks like a zip bomb")
    }

    struct Overflow: Error {}
    struct Truncated: Error {}
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

    public func label(_ path: String) -> String {
        let safe = path.clippedForMessage(limit: 200)
        return name.isEmpty ? safe : "\(name)/\(safe)"
    }
}
