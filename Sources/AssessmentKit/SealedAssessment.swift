import Localization
import Crypto
import _CryptoExtras
import Foundation

/// A sealed assessment (`carrel seal`): the canonical YAML encrypted with ChaCha20-Poly1305
/// under a key derived from the proctor passphrase with scrypt, behind a small public header.
///
/// Layout (integers big-endian):
///
///     0    14  magic "carrel-sealed\n"
///     14    1  format version (1)
///     15    1  key derivation (1: scrypt)
///     16    3  scrypt log2 N, r, p
///     19   16  salt of the package key
///     35   12  nonce
///     47    4  metadata length M
///     51    M  public metadata (JSON): id, title, description, item count, time limit,
///              navigation, policy, the proctor passphrase hash, fingerprint
///     51+M 32  SHA-256 of bytes 0..<51+M: accidental damage to the header is told apart
///              from a wrong passphrase before any is asked
///     83+M  C  ciphertext
///     end  16  Poly1305 tag
///
/// The plaintext is the canonical YAML and, after it, comment lines of spaces (`padded`) that
/// bring its length to a bucket: the package's size says how large the test is to within a
/// bucket (at least 4 KiB, then under an eighth of the size), never a few bytes of an answer.
/// A reader ignores the comments, so packages sealed before the padding open as before.
///
/// The whole header (bytes 0..<83+M) is the associated data, so a changed byte anywhere —
/// header, salt, nonce, ciphertext or tag — fails authentication. The metadata can be read
/// without the passphrase but is proven genuine only by opening.
public enum SealedAssessment {
    public static let magic: [UInt8] = Array("carrel-sealed\n".utf8)
    public static let formatVersion: UInt8 = 1
    static let scryptID: UInt8 = 1
    static let saltLength = 16
    static let nonceLength = 12
    static let tagLength = 16
    static let checksumLength = 32
    static let fixedLength = 51
    /// The metadata is a few hundred bytes; the bound keeps a hostile header small.
    public static let maximumMetadataBytes = 64 * 1024
    /// The biggest package Carrel reads: a 16 MiB assessment and its header.
    public static let maximumBytes = SourceText.maximumBytes + fixedLength + maximumMetadataBytes + checksumLength + tagLength
    /// More items than the reader's value budget allows cannot come from a valid assessment.
    static let maximumItems = 250_000

    /// The scrypt cost of the package key, as recorded in the header.
    public struct Cost: Sendable, Equatable {
        public var logRounds: Int
        public var blockSize: Int
        public var parallelism: Int

        public init(logRounds: Int, blockSize: Int, parallelism: Int) {
            self.logRounds = logRounds
            self.blockSize = blockSize
            self.parallelism = parallelism
        }

        /// 2^15 rounds, r 8, p 1: 32 MiB, like the passphrase hash beside it.
        public static let standard = Cost(logRounds: PassphraseHash.defaultLogRounds, blockSize: 8, parallelism: 1)
        /// What a header may ask for: a hostile file cannot make opening take minutes or
        /// gigabytes (at most 256 MiB and four passes).
        static let logRoundsRange = 10...18
        static let blockSizeRange = 1...16
        static let parallelismRange = 1...4
        static let maximumMemory = 256 * 1024 * 1024

        /// Bytes scrypt needs for these parameters.
        public var memory: Int { 128 * blockSize * (1 << logRounds) }

        /// Why these parameters are refused, or nil.
        var problem: String? {
            guard Self.logRoundsRange.contains(logRounds), Self.blockSizeRange.contains(blockSize),
                  Self.parallelismRange.contains(parallelism) else {
                return "scrypt parameters ln=\(logRounds), r=\(blockSize), p=\(parallelism) (allowed: ln \(Self.logRoundsRange), r \(Self.blockSizeRange), p \(Self.parallelismRange))"
            }
            guard memory <= Self.maximumMemory else {
                return "\(memory / (1024 * 1024)) MiB of memory for scrypt (at most \(Self.maximumMemory / (1024 * 1024)) MiB)"
            }
            return nil
        }

        /// Why `ln=…,r=…,p=…` is not a cost Carrel accepts, in the words of a hash's or a key's
        /// message ("unreadable parameters …", "parameters other than ln, r and p", "a cost
        /// above the limit, …").
        public struct TextProblem: Error, Equatable, CustomStringConvertible {
            public var description: String
        }

        /// The cost written as `ln=15,r=8,p=1` (each once, nothing else), within the limits.
        public static func reading(_ text: String) -> Result<Cost, TextProblem> {
            var params: [String: Int] = [:]
            for field in text.split(separator: ",") {
                let kv = field.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2, let value = Int(kv[1]), params[kv[0]] == nil else {
                    return .failure(TextProblem(description: "unreadable parameters \"\(text)\""))
                }
                params[kv[0]] = value
            }
            guard Set(params.keys) == ["ln", "r", "p"], let ln = params["ln"], let r = params["r"], let p = params["p"] else {
                return .failure(TextProblem(description: "parameters other than ln, r and p"))
            }
            let cost = Cost(logRounds: ln, blockSize: r, parallelism: p)
            if let problem = cost.problem { return .failure(TextProblem(description: "a cost above the limit, \(problem)")) }
            return .success(cost)
        }

        /// The package key costs at least as much as the passphrase hash it travels with.
        public static func matching(_ hash: PassphraseHash) -> Cost {
            var cost = standard
            cost.logRounds = min(max(standard.logRounds, hash.logRounds), logRoundsRange.upperBound)
            return cost
        }
    }

    /// What anyone can read without the passphrase: enough for the start screen, `inspect`
    /// and `validate`. Nothing in it reveals an answer.
    public struct Metadata: Sendable, Equatable, Codable {
        public var id: String
        public var title: String
        public var description: String?
        public var items: Int
        public var timeLimit: Int?
        public var navigation: Navigation
        public var policy: RestrictionPolicy
        public var passphrase: PassphraseHash
        /// The proctor's public signing key, so that a seat can check the proctor's start
        /// before the package is open. Authenticated with the rest of the header.
        public var key: ProctorKey?
        public var fingerprint: String
        /// The language the test's screens speak (its `language:` key), so that the start
        /// screen speaks it before the package is open; nil in packages sealed without one.
        public var language: String?

        enum CodingKeys: String, CodingKey {
            case id, title, description, items, navigation, policy, passphrase, key, fingerprint, language
            case timeLimit = "time_limit"
        }

        public init(_ assessment: Assessment, passphrase: PassphraseHash, fingerprint: String) {
            id = assessment.id
            title = assessment.title
            description = assessment.description
            items = assessment.sections.reduce(0) { $0 + $1.items.count }
            timeLimit = assessment.timeLimit
            navigation = assessment.navigation
            policy = assessment.policy
            self.passphrase = passphrase
            key = assessment.proctor.key
            self.fingerprint = fingerprint
            language = assessment.language
        }

        /// Why the metadata cannot be what `carrel seal` wrote, or nil.
        var problem: String? {
            guard Identifier.isValid(id) else { return "the id is not a valid assessment id" }
            guard !title.trimmingSpaces().isEmpty, TerminalSafety.firstUnsafe(in: title) == nil else {
                return "the title is empty or holds characters assessment text may not have"
            }
            if let description, TerminalSafety.firstUnsafe(in: description, allowing: ["\n", "\t"]) != nil {
                return "the description holds characters assessment text may not have"
            }
            guard (1...SealedAssessment.maximumItems).contains(items) else { return "the item count \(items) is impossible" }
            if let timeLimit, !(1...(366 * 24 * 3600)).contains(timeLimit) { return "the time limit is impossible" }
            if let language, Language(tag: language).map({ $0.rawValue != language }) ?? true {
                return "the language is not one Carrel speaks"
            }
            // The hash is checked before anything else: its cost is bounded like the key's.
            let hashCost = Cost(logRounds: passphrase.logRounds, blockSize: passphrase.blockSize, parallelism: passphrase.parallelism)
            if let problem = hashCost.problem { return "the passphrase hash asks for \(problem)" }
            if let key, let problem = Cost(logRounds: key.logRounds, blockSize: key.blockSize, parallelism: key.parallelism).problem {
                return "the proctor key asks for \(problem)"
            }
            guard (60...RestrictionPolicy.longestMaxDuration).contains(policy.maxDuration) else {
                return "the policy's max_duration is out of range"
            }
            let hex = fingerprint.dropFirst(7)
            guard fingerprint.hasPrefix(SealedAssessment.fingerprintPrefix), hex.count == 64,
                  hex.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) }) else {
                return "the fingerprint is not \(SealedAssessment.fingerprintPrefix) and 64 hex digits"
            }
            return nil
        }

        /// A stand-in with the public facts, for the start screen before the passphrase
        /// opens the package: the right title, description, question count, time, navigation,
        /// policy and passphrase, and placeholder questions with nothing in them.
        public var preview: Assessment {
            let placeholders = (0..<items).map { n in
                Item(id: "sealed-\(n + 1)", prompt: "(sealed)", points: 0, kind: .essay(minWords: nil, maxWords: nil))
            }
            var preview = Assessment(
                id: id, title: title, description: description, timeLimit: timeLimit, navigation: navigation,
                proctor: ProctorSettings(passphrase: passphrase, key: key), policy: policy, sections: [Section(items: placeholders)])
            preview.language = language
            return preview
        }
    }

    /// The public header of a package, read without the passphrase.
    public struct Header: Sendable, Equatable {
        public var version: UInt8
        public var cost: Cost
        public var salt: [UInt8]
        public var nonce: [UInt8]
        public var metadata: Metadata
        /// Where the ciphertext starts: bytes before it are the associated data.
        public var length: Int
    }

    /// Why a package cannot be sealed, read or opened. Descriptions follow the file name.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case notSealed
        case unsupportedVersion(Int)
        case damaged(String)
        case unreasonableCost(String)
        case wrongPassphrase
        case noPassphrase
        case cannotSeal(String)

        public var description: String {
            switch self {
            case .notSealed:
                return "is not a sealed Carrel assessment (no `carrel-sealed` header)"
            case let .unsupportedVersion(v):
                return "sealed package format \(v) is not one this Carrel reads (format \(SealedAssessment.formatVersion)); seal it again with this Carrel, or copy the original again if it was damaged"
            case let .damaged(why):
                return "sealed package is damaged or was changed (\(why)); copy the .carrel file again from the proctor's original"
            case let .unreasonableCost(why):
                return "sealed package asks for \(why); `carrel seal` never writes that, so it is damaged or forged — copy the original again"
            case .wrongPassphrase:
                return "wrong proctor passphrase for this sealed assessment"
            case .noPassphrase:
                return "has no proctor passphrase, and only the proctor passphrase opens a sealed assessment; run `carrel passphrase` and put the line it prints under `proctor: passphrase:`, then seal again"
            case let .cannotSeal(why):
                return "cannot be sealed: \(why)"
            }
        }

        /// A wrong passphrase is the proctor's to retry; everything else is the file's fault.
        public var isWrongPassphrase: Bool { self == .wrongPassphrase }
    }

    /// True when `bytes` start like a sealed package, whatever state the rest is in: a first
    /// line one or two bytes off `carrel-sealed` is a damaged package, not a YAML file.
    public static func isSealed(_ bytes: some Collection<UInt8>) -> Bool {
        let start = Array(bytes.prefix(magic.count))
        guard start.count == magic.count else { return false }
        return zip(start, magic).filter { $0 != $1 }.count <= 2
    }

    // MARK: reading the header

    /// Reads and checks the public header: bounded sizes and scrypt cost, the checksum, and
    /// metadata that `carrel seal` could have written. Costs no key derivation.
    public static func header(of bytes: [UInt8]) throws(Failure) -> Header {
        guard isSealed(bytes) else { throw .notSealed }
        guard bytes.starts(with: magic) else { throw .damaged("its first line is not `carrel-sealed`") }
        guard bytes.count > magic.count else { throw .damaged("it ends after its first line") }
        let version = bytes[magic.count]
        guard version == formatVersion else { throw .unsupportedVersion(Int(version)) }
        guard bytes.count >= fixedLength else { throw .damaged("it is cut short inside the header") }
        guard bytes.count <= maximumBytes else { throw .damaged("it is larger than any sealed assessment (\(bytes.count) bytes)") }
        let metadataLength = Int(bytes[47]) << 24 | Int(bytes[48]) << 16 | Int(bytes[49]) << 8 | Int(bytes[50])
        guard (2...maximumMetadataBytes).contains(metadataLength) else { throw .damaged("the header's length is impossible") }
        let length = fixedLength + metadataLength + checksumLength
        guard bytes.count >= length + 1 + tagLength else { throw .damaged("it is cut short") }
        let checksum = Array(SHA256.hash(data: bytes[0..<(fixedLength + metadataLength)]))
        guard checksum == Array(bytes[(fixedLength + metadataLength)..<length]) else {
            throw .damaged("the header's checksum does not match")
        }
        guard bytes[15] == scryptID else { throw .damaged("unknown key derivation \(bytes[15])") }
        let cost = Cost(logRounds: Int(bytes[16]), blockSize: Int(bytes[17]), parallelism: Int(bytes[18]))
        if let problem = cost.problem { throw .unreasonableCost(problem) }
        let metadata: Metadata
        do {
            metadata = try JSONDecoder().decode(Metadata.self, from: Data(bytes[fixedLength..<(fixedLength + metadataLength)]))
        } catch {
            throw .damaged("the public metadata cannot be read")
        }
        if let problem = metadata.problem { throw .damaged(problem) }
        return Header(version: version, cost: cost, salt: Array(bytes[19..<35]), nonce: Array(bytes[35..<47]),
                      metadata: metadata, length: length)
    }

    // MARK: what stays in the clear

    /// Item ids that give an answer away. Sealing hides the key, but item ids travel in the
    /// clear in the journal, results and exports: an id that spells an accepted answer or the
    /// correct choice (`syzygy` for `accept: [syzygy]`) would leak it. One line per item.
    public static func revealingIDs(_ assessment: Assessment) -> [String] {
        assessment.items.enumerated().compactMap { index, item in
            let idWords = item.id.split(separator: "-").map(String.init)
            guard let answer = keyTexts(item).first(where: { appears(words(of: $0), in: idWords) }) else { return nil }
            return "item id `\(item.id)` gives away the answer \"\(answer.clippedForMessage)\"; item ids are kept in the clear in results and exports, so rename it (for example `q\(index + 1)`) before sealing"
        }
    }

    /// Accepted answers and correct choices (numbers, true/false, orders and pairs are too
    /// short or too structured to be spelled by an id).
    static func keyTexts(_ item: Item) -> [String] {
        var out: [String] = []
        switch item.kind {
        case let .choice(_, answer): out = [answer]
        case let .multiple(_, answers, _): out = answers
        case let .text(accept, _): out = accept
        default: break
        }
        if case let .texts(answers)? = item.marking { out += answers.filter { $0.credit > 0 }.map(\.text) }
        if case let .choices(marks)? = item.marking { out += marks.filter { ($0.credit ?? 0) > 0 }.map(\.text) }
        return out
    }

    /// Lower-case letters and digits without accents, in runs: "Naïve  Art!" → ["naive", "art"].
    static func words(of text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        var runs: [String] = []
        var current = ""
        for scalar in folded.unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                runs.append(current)
                current = ""
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }

    /// True when `answer`'s words appear one after another among the id's words; answers
    /// shorter than three letters (a, b, 42) are ignored, too common to mean anything.
    static func appears(_ answer: [String], in id: [String]) -> Bool {
        guard !answer.isEmpty, answer.joined().count >= 3, answer.count <= id.count else { return false }
        for start in 0...(id.count - answer.count) where Array(id[start..<(start + answer.count)]) == answer {
            return true
        }
        return false
    }

    // MARK: sealing and opening

    /// Seals `assessment` under `passphrase`, which must be its proctor passphrase. The
    /// plaintext is the canonical YAML, checked to read back to the same fingerprint.
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
        let yaml = AssessmentWriter.yaml(assessment)
        // One buffer, sized for its padding from the start: no copy of the text is left behind
        // unwiped when it grows. What is checked to read back is what is sealed, padding and all.
        var plaintext: [UInt8] = []
        defer { wipe(&plaintext) }
        plaintext.reserveCapacity(bucket(yaml.utf8.count + 3))
        plaintext.append(contentsOf: yaml.utf8)
        pad(&plaintext)
        guard let back = AssessmentReader.read(bytes: plaintext, file: "sealed").assessment, Fingerprint.of(back) == plainFingerprint else {
            throw .cannotSeal("its canonical form does not read back to the same assessment")
        }
        guard plaintext.count <= SourceText.maximumBytes else {
            throw .cannotSeal("its canonical form is larger than 16 MiB")
        }
        let salt = randomBytes(saltLength)
        let nonce = randomBytes(nonceLength)
        let key: SymmetricKey
        do {
            key = try deriveKey(passphrase, salt: salt, cost: cost)
        } catch {
            throw .cannotSeal("the package key cannot be derived (\(error))")
        }
        let metadata: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let fingerprint = keyedFingerprint(plainFingerprint, key: key)
            metadata = Array(try encoder.encode(Metadata(assessment, passphrase: hash, fingerprint: fingerprint)))
        } catch {
            throw .cannotSeal("its public metadata cannot be encoded (\(error))")
        }
        guard metadata.count <= maximumMetadataBytes else {
            throw .cannotSeal("its title and description take more than \(maximumMetadataBytes / 1024) KiB")
        }
        var header = magic + [formatVersion, scryptID, UInt8(cost.logRounds), UInt8(cost.blockSize), UInt8(cost.parallelism)]
        header += salt + nonce
        let m = UInt32(metadata.count)
        header += [UInt8(m >> 24), UInt8(m >> 16 & 0xFF), UInt8(m >> 8 & 0xFF), UInt8(m & 0xFF)] + metadata
        header += Array(SHA256.hash(data: header))
        do {
            let box = try ChaChaPoly.seal(plaintext, using: key, nonce: try ChaChaPoly.Nonce(data: nonce), authenticating: header)
            return header + Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw .cannotSeal("encryption failed (\(error))")
        }
    }

    /// Opens a package in memory: the passphrase is checked against the header's hash (a
    /// wrong one is `.wrongPassphrase`; `passphraseChecked` skips that when the proctor gate
    /// already did it), the package key derived, the whole package authenticated, and the
    /// YAML inside validated and matched to the header's fingerprint.
    public static func open(_ bytes: [UInt8], passphrase: String, file: String,
                            passphraseChecked: Bool = false) throws(Failure) -> Assessment {
        let header = try header(of: bytes)
        if !passphraseChecked {
            guard header.metadata.passphrase.verify(passphrase) else { throw .wrongPassphrase }
        }
        let key: SymmetricKey
        do {
            key = try deriveKey(passphrase, salt: header.salt, cost: header.cost)
        } catch {
            throw .damaged("authentication failed")
        }
        return try open(bytes, header: header, key: key, file: file)
    }

    /// Opens a package with its package key (as the proctor's start gives it to a seat,
    /// wrapped to the seat alone): authenticated, validated and matched like `open`.
    public static func open(_ bytes: [UInt8], packageKey: [UInt8], file: String) throws(Failure) -> Assessment {
        guard packageKey.count == 32 else { throw .damaged("the package key given is not 32 bytes") }
        return try open(bytes, header: try header(of: bytes), key: SymmetricKey(data: packageKey), file: file)
    }

    /// The package key `passphrase` derives for a package with this header's salt and cost
    /// (the console derives it once to start a sealed room's seats).
    public static func packageKey(passphrase: String, salt: [UInt8], cost: Cost) throws(Failure) -> [UInt8] {
        if let problem = cost.problem { throw .unreasonableCost(problem) }
        do {
            return try deriveKey(passphrase, salt: salt, cost: cost).withUnsafeBytes { Array($0) }
        } catch {
            throw .damaged("the package key cannot be derived (\(error))")
        }
    }

    static func open(_ bytes: [UInt8], header: Header, key: SymmetricKey, file: String) throws(Failure) -> Assessment {
        var plaintext: [UInt8]
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: try ChaChaPoly.Nonce(data: header.nonce),
                ciphertext: bytes[header.length..<(bytes.count - tagLength)],
                tag: bytes[(bytes.count - tagLength)...])
            plaintext = Array(try ChaChaPoly.open(box, using: key, authenticating: bytes[0..<header.length]))
        } catch {
            throw .damaged("authentication failed")
        }
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
