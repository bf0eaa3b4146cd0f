#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit

/// Loads an assessment file from disk: at most 16 MiB + 1 bytes are read, so a device or
/// a huge file cannot exhaust memory.
enum AssessmentFile {
    struct Loaded {
        var bytes: [UInt8]
        var sizeOnDisk: Int?
    }

    /// Reads up to the size of the largest sealed package (a YAML file over 16 MiB is still
    /// refused by the reader, which is told its size on disk).
    static func load(_ path: String, limit maximum: Int = SealedAssessment.maximumBytes) throws(CarrelFailure) -> Loaded {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw CarrelFailure(status: .cannotOpenInput, message: "cannot open \(path): \(reason); check the path and permissions")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw CarrelFailure(status: .cannotOpenInput, message: "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR {
            throw CarrelFailure(status: .cannotOpenInput, message: "\(path) is a directory; name an assessment file (.yaml)")
        }
        guard type == S_IFREG else {
            throw CarrelFailure(status: .cannotOpenInput, message: "\(path) is not a regular file; name an assessment file (.yaml)")
        }
        let limit = maximum + 1
        var bytes: [UInt8] = []
        // Sized once from the file's size (which may change while it is read; the limit holds
        // either way): growing by doubling copied a large test several times and touched
        // twice its size in fresh memory.
        bytes.reserveCapacity(min(limit, max(0, Int(info.st_size)) + 1))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < limit {
            let want = min(chunk.count, limit - bytes.count)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, want) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                throw CarrelFailure(status: .cannotOpenInput, message: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return Loaded(bytes: bytes, sizeOnDisk: Int(info.st_size))
    }

    /// Loads and validates, printing every diagnostic as `FILE:LINE:COL: severity: message`.
    static func validated(_ path: String) throws(CarrelFailure) -> Assessment {
        try validated(path, loaded: try load(path))
    }

    /// Validates a plain file already loaded; a sealed one is refused with what to do.
    static func validated(_ path: String, loaded: Loaded) throws(CarrelFailure) -> Assessment {
        if SealedAssessment.isSealed(loaded.bytes) {
            throw CarrelFailure(status: .invalidAssessment, message: "\(path) is a sealed assessment; this command reads the YAML file it was sealed from")
        }
        let outcome = AssessmentReader.read(bytes: loaded.bytes, file: path, fileSize: loaded.sizeOnDisk)
        for diagnostic in outcome.diagnostics {
            FileOutput.standardError.write("\(diagnostic)\n")
        }
        guard let assessment = outcome.assessment else {
            let count = outcome.diagnostics.errors.count
            let noun = count == 1 ? "problem" : "problems"
            throw CarrelFailure(status: .invalidAssessment,
                                message: "\(path) has \(count) \(noun); fix the lines above and run `carrel validate \(path)` again")
        }
        return assessment
    }
}

/// Sealed packages (`carrel seal`) as the commands read them: the public header without the
/// passphrase, the whole assessment in memory with it. Every failure is one line naming the
/// file: 77 for a wrong passphrase, 65 for anything wrong with the package.
enum SealedFile {
    static func failure(_ path: String, _ error: SealedAssessment.Failure) -> CarrelFailure {
        if error.isWrongPassphrase {
            return CarrelFailure(status: .wrongPassphrase, message: "\(path): \(error); nothing was opened — type the passphrase of `carrel passphrase` that this assessment was sealed with")
        }
        return CarrelFailure(status: .invalidAssessment, message: "\(path): error: \(error)")
    }

    static func header(_ loaded: AssessmentFile.Loaded, path: String) throws(CarrelFailure) -> SealedAssessment.Header {
        do {
            return try SealedAssessment.header(of: loaded.bytes)
        } catch {
            throw failure(path, error)
        }
    }

    static func open(_ loaded: AssessmentFile.Loaded, path: String, passphrase: String) throws(CarrelFailure) -> Assessment {
        do {
            return try SealedAssessment.open(loaded.bytes, passphrase: passphrase, file: path)
        } catch {
            throw failure(path, error)
        }
    }
}
