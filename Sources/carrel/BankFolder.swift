#if canImport(Glibc)
import Glibc
#endif
import Foundation
import AssessmentKit
import ImportKit

/// A folder holding a QTI package (or the images next to one item file), read with the same
/// bounds as a zip: a capped number of files, no file outside the folder, nothing followed
/// through a symbolic link.
struct BankFolder: PackageFiles {
    let root: String
    let display: String
    let paths: Set<String>

    static let maximumFiles = ZipPackage.maximumEntries

    /// Lists the folder; `display` is how diagnostics name it.
    init(root: String, display: String) throws(ImportRefusal) {
        self.root = root
        self.display = display
        var found: Set<String> = []
        var pending = [""]
        while let folder = pending.popLast() {
            let full = folder.isEmpty ? root : root + "/" + folder
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: full) else { continue }
            for name in names.sorted() {
                let relative = folder.isEmpty ? name : folder + "/" + name
                var info = stat()
                guard lstat(root + "/" + relative, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    if relative.split(separator: "/").count < 32 { pending.append(relative) }
                case S_IFREG:
                    found.insert(relative)
                    guard found.count <= Self.maximumFiles else {
                        throw ImportRefusal(file: display, reason: "the folder holds more than \(Self.maximumFiles) files")
                    }
                default:
                    continue
                }
            }
        }
        paths = found
    }

    func label(_ path: String) -> String {
        let safe = path.clippedForMessage(limit: 200)
        return display.isEmpty || display == "." ? safe : display + "/" + safe
    }

    func read(_ path: String, limit: Int) throws(ImportRefusal) -> [UInt8]? {
        guard paths.contains(path), let clean = PackagePath.normalised(path), clean == path else { return nil }
        let fd = open(root + "/" + path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > limit {
                throw ImportRefusal(file: label(path), reason: "the file is larger than \(limit / 1024 / 1024) MiB")
            }
        }
        return bytes
    }
}
