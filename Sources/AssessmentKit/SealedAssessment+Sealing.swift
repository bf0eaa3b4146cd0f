import Localization
import Crypto
import _CryptoExtras
import Foundation

// Sealing a package, and opening it with the passphrase or the package key.
extension SealedAssessment {
    // MARK: sealing and opening

    /// Seals `assessment` under `passphrase`, which must be its proctor passphrase, in two
    /// parts (format 2): the test without its key under the package key, and the whole test —
    /// the canonical YAML, checked to read back to the same fingerprint — under the scoring key.
    public static func seal(_ assessment: Assessment, passphrase: String, cost: Cost? = nil) throws(Failure) -> [UInt8] {
        guard let hash = assessment.proctor.passphrase else { throw .noPassphrase }
        let cost = cost ?? .matching(hash)
        if let problem = cost.problem { throw .cannotSeal(problem) }
        if let first = revealingIDs(assessment).first { throw .cannotSeal(first) }
        guard hash.verify(passphrase) else { throw .wrongPassphrase }
        if let key = assessment.proctor.key, key.signingKey(passphrase: passphrase) == nil {
            throw .cannotSeal("its proctor.key was not made from this passphrase (the console could not sign for it); run `carrel passphrase` and put both lines it prints under `proctor:`")
        }
        let plainFingerprint = Fingerprint.of(assessment)
        var whole = try wholePlaintext(assessment, fingerprint: plainFingerprint)
        defer { wipe(&whole) }
        var student = try studentPlaintext(assessment)
        defer { wipe(&student) }
        let (salt, scoringSalt) = (randomBytes(saltLength), randomBytes(saltLength))
        let (nonce, scoringNonce) = (randomBytes(nonceLength), randomBytes(nonceLength))
        let packageKey: SymmetricKey, scoringKey: SymmetricKey
        do {
            packageKey = try deriveKey(passphrase, salt: salt, cost: cost)
            scoringKey = try deriveScoringKey(passphrase, salt: scoringSalt, cost: cost)
        } catch {
            throw .cannotSeal("the package keys cannot be derived (\(error))")
        }
        let metadata: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // Keyed by the scoring key: a seat's package key cannot check a guessed key against it.
            let fingerprint = keyedFingerprint(plainFingerprint, key: scoringKey)
            metadata = Array(try encoder.encode(Metadata(assessment, passphrase: hash, fingerprint: fingerprint)))
        } catch {
            throw .cannotSeal("its public metadata cannot be encoded (\(error))")
        }
        guard metadata.count <= maximumMetadataBytes else {
            throw .cannotSeal("its title and description take more than \(maximumMetadataBytes / 1024) KiB")
        }
        var header = magic + [formatVersion, scryptID, UInt8(cost.logRounds), UInt8(cost.blockSize), UInt8(cost.parallelism)]
        header += salt + nonce + scoringSalt + scoringNonce + bigEndianBytes(student.count + tagLength)
        header += bigEndianBytes(metadata.count) + metadata
        header += Array(SHA256.hash(data: header))
        do {
            let studentBox = try ChaChaPoly.seal(student, using: packageKey, nonce: try ChaChaPoly.Nonce(data: nonce), authenticating: header)
            let scoringBox = try ChaChaPoly.seal(whole, using: scoringKey, nonce: try ChaChaPoly.Nonce(data: scoringNonce), authenticating: header)
            return header + Array(studentBox.ciphertext) + Array(studentBox.tag) + Array(scoringBox.ciphertext) + Array(scoringBox.tag)
        } catch {
            throw .cannotSeal("encryption failed (\(error))")
        }
    }

    /// The canonical YAML, padded to its bucket, checked to read back to the same test. One
    /// buffer, sized for its padding from the start: no copy is left behind unwiped when it grows.
    static func wholePlaintext(_ assessment: Assessment, fingerprint: String) throws(Failure) -> [UInt8] {
        let yaml = AssessmentWriter.yaml(assessment)
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(bucket(yaml.utf8.count + 3))
        plaintext.append(contentsOf: yaml.utf8)
        pad(&plaintext)
        guard let back = AssessmentReader.read(bytes: plaintext, file: "sealed").assessment, Fingerprint.of(back) == fingerprint else {
            wipe(&plaintext)
            throw .cannotSeal("its canonical form does not read back to the same assessment")
        }
        guard plaintext.count <= SourceText.maximumBytes else {
            wipe(&plaintext)
            throw .cannotSeal("its canonical form is larger than 16 MiB")
        }
        return plaintext
    }

    /// The test without its key as JSON, and spaces to its bucket.
    static func studentPlaintext(_ assessment: Assessment) throws(Failure) -> [UInt8] {
        var json: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            json = Array(try encoder.encode(assessment.withoutKey))
        } catch {
            throw .cannotSeal("its student part cannot be encoded (\(error))")
        }
        guard json.count < SourceText.maximumBytes else { throw .cannotSeal("its student part is larger than 16 MiB") }
        json.append(contentsOf: repeatElement(UInt8(ascii: " "), count: bucket(json.count + 1) - json.count))
        return json
    }

    static func bigEndianBytes(_ n: Int) -> [UInt8] {
        [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
    }

    /// Opens a package in memory: the passphrase is checked against the header's hash (a
    /// wrong one is `.wrongPassphrase`; `passphraseChecked` skips that when the proctor gate
    /// already did it), the key derived, the whole package authenticated, and the YAML inside
    /// validated and matched to the header's fingerprint. The whole test, key and all (format
    /// 2: its scoring part).
    public static func open(_ bytes: [UInt8], passphrase: String, file: String,
                            passphraseChecked: Bool = false) throws(Failure) -> Assessment {
        let header = try header(of: bytes)
        if !passphraseChecked {
            guard header.metadata.passphrase.verify(passphrase) else { throw .wrongPassphrase }
        }
        do {
            if let scoring = header.scoring {
                let key = try deriveScoringKey(passphrase, salt: scoring.salt, cost: header.cost)
                let part = bytes[(header.length + scoring.studentLength)...]
                let whole = try openWhole(part, nonce: scoring.nonce, bytes: bytes, header: header, key: key, file: file)
                // The student part is checked too: a changed byte anywhere refuses the package,
                // and what the seats were shown is this test's questions and nothing else.
                let packageKey = try deriveKey(passphrase, salt: header.salt, cost: header.cost)
                let studentPart = bytes[header.length..<(header.length + scoring.studentLength)]
                guard try openStudent(studentPart, bytes: bytes, header: header, key: packageKey) == whole.withoutKey else {
                    throw Failure.damaged("its student part is not its test's questions")
                }
                return whole
            }
            let key = try deriveKey(passphrase, salt: header.salt, cost: header.cost)
            return try openWhole(bytes[header.length...], nonce: header.nonce, bytes: bytes, header: header, key: key, file: file)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .damaged("authentication failed")
        }
    }

    /// Opens a package with its package key (as the proctor's start gives it to a seat,
    /// wrapped to the seat alone): authenticated, validated and matched like `open`. A format 2
    /// package gives the test without its key (`keyless`); a format 1 package, the whole test.
    public static func open(_ bytes: [UInt8], packageKey: [UInt8], file: String) throws(Failure) -> Assessment {
        guard packageKey.count == 32 else { throw .damaged("the package key given is not 32 bytes") }
        let header = try header(of: bytes)
        let key = SymmetricKey(data: packageKey)
        guard let scoring = header.scoring else {
            return try openWhole(bytes[header.length...], nonce: header.nonce, bytes: bytes, header: header, key: key, file: file)
        }
        let part = bytes[header.length..<(header.length + scoring.studentLength)]
        return try openStudent(part, bytes: bytes, header: header, key: key)
    }

    /// The package key `passphrase` derives for a package with this header's salt and cost
    /// (the console derives it once to start a sealed room's seats). It opens the student part
    /// of a format 2 package, and never its scoring part.
    public static func packageKey(passphrase: String, salt: [UInt8], cost: Cost) throws(Failure) -> [UInt8] {
        if let problem = cost.problem { throw .unreasonableCost(problem) }
        do {
            return try deriveKey(passphrase, salt: salt, cost: cost).withUnsafeBytes { Array($0) }
        } catch {
            throw .damaged("the package key cannot be derived (\(error))")
        }
    }

    /// One part decrypted, its header authenticated with it.
    static func decrypt(_ part: ArraySlice<UInt8>, nonce: [UInt8], bytes: [UInt8], header: Header,
                        key: SymmetricKey) throws(Failure) -> [UInt8] {
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: try ChaChaPoly.Nonce(data: nonce),
                ciphertext: part.dropLast(tagLength), tag: part.suffix(tagLength))
            return Array(try ChaChaPoly.open(box, using: key, authenticating: bytes[0..<header.length]))
        } catch {
            throw .damaged("authentication failed")
        }
    }

    static func openWhole(_ part: ArraySlice<UInt8>, nonce: [UInt8], bytes: [UInt8], header: Header, key: SymmetricKey,
                          file: String) throws(Failure) -> Assessment {
        var plaintext = try decrypt(part, nonce: nonce, bytes: bytes, header: header, key: key)
        defer { wipe(&plaintext) }
        let outcome = AssessmentReader.read(bytes: plaintext, file: "\(file) (sealed)")
        guard let assessment = outcome.assessment else {
            throw .damaged("the assessment inside does not validate: \(outcome.diagnostics.errors.first?.message ?? "invalid")")
        }
        guard keyedFingerprint(Fingerprint.of(assessment), key: key) == header.metadata.fingerprint else {
            throw .damaged("the assessment inside does not match the header's fingerprint")
        }
        guard assessment.proctor.key == header.metadata.key else {
            throw .damaged("the proctor key inside is not the header's")
        }
        return assessment
    }

    /// Format 2's student part: the test without its key, checked against the header.
    static func openStudent(_ part: ArraySlice<UInt8>, bytes: [UInt8], header: Header, key: SymmetricKey) throws(Failure) -> Assessment {
        var plaintext = try decrypt(part, nonce: header.nonce, bytes: bytes, header: header, key: key)
        defer { wipe(&plaintext) }
        var assessment: Assessment
        do {
            let end = plaintext.lastIndex { $0 != UInt8(ascii: " ") }.map { $0 + 1 } ?? 0
            assessment = try JSONDecoder().decode(Assessment.self, from: Data(plaintext[0..<end]))
        } catch {
            throw .damaged("its student part cannot be read")
        }
        let m = header.metadata
        guard assessment.id == m.id, assessment.title == m.title, assessment.itemCount == m.items,
              assessment.proctor.key == m.key, assessment.proctor.passphrase == m.passphrase, assessment.policy == m.policy,
              assessment.items.allSatisfy({ Identifier.isValid($0.id) }) else {
            throw .damaged("its student part does not match its header")
        }
        assessment.keyless = true
        return assessment
    }

    /// The smallest plaintext a package holds: every test that small seals to one size.
    static let smallestBucket = 4096

    /// The length `count` bytes are padded to: at least `smallestBucket`, then the next value
    /// with only the top bits of its length's magnitude set (the Padmé rule: at most 12 %
    /// more, and a size tells only about log log of the length). Never past the reader's limit.
    public static func bucket(_ count: Int) -> Int {
        let length = max(count, smallestBucket)
        let e = Int.bitWidth - 1 - length.leadingZeroBitCount          // floor(log2 length)
        let s = Int.bitWidth - e.leadingZeroBitCount                    // floor(log2 e) + 1
        let mask = (1 << max(0, e - s)) - 1
        return min((length + mask) & ~mask, SourceText.maximumBytes)
    }

    /// `yaml` and comment lines of spaces to its bucket (two bytes at least, so that a
    /// comment always fits: `#` and a line break).
    static func padded(_ yaml: [UInt8]) -> [UInt8] {
        var out = yaml
        pad(&out)
        return out
    }

    /// `padded`, in place.
    static func pad(_ out: inout [UInt8]) {
        if out.last != UInt8(ascii: "\n") { out.append(UInt8(ascii: "\n")) }
        let target = bucket(out.count + 2)
        guard target >= out.count + 2 else { return }
        out.reserveCapacity(target)
        var left = target - out.count
        while left > 0 {
            // Lines of 100 bytes; the last one, or the one before it, shorter, never a lone byte.
            var line = min(left, 100)
            if left - line == 1 { line -= 1 }
            out.append(UInt8(ascii: "#"))
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: line - 2))
            out.append(UInt8(ascii: "\n"))
            left -= line
        }
    }

    /// What a sealed package's fingerprint starts with (a plain one starts with `sha256:`).
    public static let fingerprintPrefix = "sealed:"

    /// The fingerprint a sealed package shows — in its header, the journal, results and
    /// exports: the content's fingerprint keyed by the package key. It names the package,
    /// but without the passphrase nobody can confirm a guessed answer key against it (a plain
    /// SHA-256 of content whose every other part the student has seen would let them try
    /// every combination of choices offline). `inspect --passphrase-stdin` shows the plain one.
    static func keyedFingerprint(_ plain: String, key: SymmetricKey) -> String {
        let label = HMAC<SHA256>.authenticationCode(for: Array("carrel sealed fingerprint".utf8), using: key)
        let mac = HMAC<SHA256>.authenticationCode(for: Array(plain.utf8), using: SymmetricKey(data: label))
        return fingerprintPrefix + Fingerprint.hex(mac)
    }

    static func deriveKey(_ passphrase: String, salt: [UInt8], cost: Cost) throws -> SymmetricKey {
        guard passphrase.utf8.count <= PassphraseHash.maximumBytes else { throw PassphraseHash.InputProblem.tooLong }
        var bytes = Array(PassphraseHash.normalise(passphrase).utf8)
        defer { wipe(&bytes) }
        return try KDF.Scrypt.deriveKey(
            from: bytes, salt: salt, outputByteCount: 32,
            rounds: 1 << cost.logRounds, blockSize: cost.blockSize, parallelism: cost.parallelism)
    }

    /// The scoring key of a format 2 package: scrypt with its own salt, then HKDF with its own
    /// label, so that nothing derived for a seat (the package key) leads to it.
    static func deriveScoringKey(_ passphrase: String, salt: [UInt8], cost: Cost) throws -> SymmetricKey {
        let stretched = try deriveKey(passphrase, salt: salt, cost: cost)
        return HKDF<SHA256>.deriveKey(inputKeyMaterial: stretched, info: Array("carrel scoring key v2".utf8), outputByteCount: 32)
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
    }

    /// Overwrites a buffer that held plaintext or a passphrase before it is freed (best
    /// effort: the model read from it lives on in memory while the test runs).
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBufferPointer { buffer in
            for i in buffer.indices { buffer[i] = 0 }
        }
    }
}
