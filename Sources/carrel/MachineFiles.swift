#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Foundation
import MachineSeal

/// The files enrolment writes, as root: the folder (root's, 0755), the key (root's, 0600,
/// made once), the configuration (root's, 0644), and the helper's setuid bit.
enum MachineFiles {
    static func fail(_ message: String) -> CarrelFailure { CarrelFailure(status: .cannotCreate, message: message) }

    /// The folder, made when missing; refused when someone but root could write it.
    static func folder() throws(CarrelFailure) -> String {
        let path = MachineFolder.path
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw fail("\(path) cannot be made (\(String(cString: strerror(errno))))") }
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR, st.st_uid == 0 else {
            throw fail("\(path) must be a folder of root's")
        }
        if st.st_mode & 0o022 != 0 || st.st_mode & 0o777 != 0o755 { _ = chmod(path, 0o755) }
        return path
    }

    /// The machine key: the one there (checked: root's, 0600, not a link), or a new one.
    static func keyMadeIfMissing() throws(CarrelFailure) -> Curve25519.Signing.PrivateKey {
        _ = try folder()
        let path = MachineFolder.key
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == 0, st.st_mode & 0o077 == 0 else {
                throw fail("\(path) must be a regular file of root's, mode 0600 (not a link); move it away to make a new key")
            }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8), let key = MachineKey.privateKey(fileText: text) else {
                throw fail("\(path) holds no machine key; move it away to make a new one")
            }
            return key
        }
        let text = MachineKey.newKeyFileText()
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw fail("\(path) cannot be made (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard fchmod(fd, 0o600) == 0, bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count, fsync(fd) == 0,
              let key = MachineKey.privateKey(fileText: text) else {
            _ = unlink(path)
            throw fail("\(path) cannot be written")
        }
        return key
    }

    /// `config` written in place of the old one, whole or not at all.
    static func writeConfig(_ config: MachineConfig) throws(CarrelFailure) {
        let path = MachineFolder.config
        let temporary = path + ".new"
        _ = unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw fail("\(temporary) cannot be made") }
        let bytes = Array(config.text.utf8)
        let written = fchmod(fd, 0o644) == 0 && bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count && fsync(fd) == 0
        close(fd)
        guard written, rename(temporary, path) == 0 else {
            _ = unlink(temporary)
            throw fail("\(path) cannot be written")
        }
    }

    /// The helper made root's and setuid (4755); refused when it is missing, not a regular
    /// file, or in a folder others may write.
    static func makeSetuid(_ helper: String) throws(CarrelFailure) {
        var st = stat()
        guard lstat(helper, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw fail("no signing helper at \(helper): install carrel-keysign next to carrel")
        }
        var folder = stat()
        let parent = (helper as NSString).deletingLastPathComponent
        guard lstat(parent, &folder) == 0, folder.st_uid == 0, folder.st_mode & 0o022 == 0 else {
            throw fail("\(parent) may be written by others than root: a setuid helper there could be replaced; install Carrel in a folder of root's (/usr/local/bin)")
        }
        guard chown(helper, 0, 0) == 0, chmod(helper, 0o4755) == 0 else { throw fail("\(helper) cannot be made setuid root") }
    }
}

