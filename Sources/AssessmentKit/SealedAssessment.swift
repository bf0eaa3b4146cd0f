import Localization
import Crypto
import _CryptoExtras
import Foundation

/// A sealed assessment (`carrel seal`): the test encrypted with ChaCha20-Poly1305 under keys
/// derived from the proctor passphrase with scrypt, behind a small public header.
///
/// Layout (integers big-endian):
///
///     0    14  magic "carrel-sealed\n"
///     14    1  format version (2; 1 is still read)
///     15    1  key derivation (1: scrypt)
///     16    3  scrypt log2 N, r, p
///     19   16  salt of the package key
///     35   12  nonce of the student part (format 1: of the one part)
///   format 2 only:
///     47   16  salt of the scoring key
///     63   12  nonce of the scoring part
///     75    4  length S of the student part, tag included
///     F     4  metadata length M (F: 47 in format 1, 79 in format 2)
///     F+4   M  public metadata (JSON): id, title, description, item count, time limit,
///              navigation, policy, the proctor passphrase hash, fingerprint
///     F+4+M 32 SHA-256 of everything before it: accidental damage to the header is told
///              apart from a wrong passphrase before any is asked
///   then, format 2: the student part (S bytes: ciphertext and tag) and the scoring part
///   (ciphertext and tag); format 1: one part (ciphertext and tag).
///
/// Format 2 splits the test when it is sealed. The *student part* is the test without its
/// key (`Assessment.withoutKey`, as JSON) under the package key — scrypt(passphrase, salt) —
/// which is what the proctor's start gives a seat. The *scoring part* is the whole test (the
/// canonical YAML) under the scoring key — HKDF(scrypt(passphrase, scoring salt), "carrel
/// scoring key v2") — which is never sent anywhere: only the passphrase opens it. The header's
/// fingerprint is keyed by the scoring key, so a seat's package key cannot test a guessed key
/// against it. Format 1 has one part, the whole test under the package key.
///
/// Each plaintext is padded (comment lines in YAML, spaces after the JSON) to a bucket: the
/// package's size says how large the test is to within a bucket (at least 4 KiB, then under
/// an eighth of the size), never a few bytes of an answer.
///
/// The whole header is the associated data of both parts, so a changed byte anywhere —
/// header, salts, nonces, ciphertext or tag — fails authentication. The metadata can be read
/// without the passphrase but is proven genuine only by opening.
public enum SealedAssessment {
    public static let magic: [UInt8] = Array("carrel-sealed\n".utf8)
    /// The format `seal` writes; format 1 (one part, the whole test under the package key)
    /// is still read.
    public static let formatVersion: UInt8 = 2
    static let readableVersions: ClosedRange<UInt8> = 1...2
    static let scryptID: UInt8 = 1
    static let saltLength = 16
    static let nonceLength = 12
    static let tagLength = 16
    static let checksumLength = 32
    static let fixedLength = 51
    /// The metadata is a few hundred bytes; the bound keeps a hostile header small.
    public static let maximumMetadataBytes = 64 * 1024
    /// Format 2's fixed fields: format 1's, the scoring salt and nonce and the student part's length.
    static let splitFixedLength = 79 + 4
    /// The biggest package Carrel reads: a 16 MiB assessment (twice: the student part and the
    /// scoring part) and its header.
    public static let maximumBytes = 2 * (SourceText.maximumBytes + tagLength) + splitFixedLength + maximumMetadataBytes + checksumLength
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
        /// Format 2's scoring part; nil in format 1.
        public var scoring: ScoringPart?

        /// True when a seat given the package key gets the test without its key.
        public var isSplit: Bool { scoring != nil }
    }

    /// Where format 2 keeps its two parts, and what derives the scoring key.
    public struct ScoringPart: Sendable, Equatable {
        public var salt: [UInt8]
        public var nonce: [UInt8]
        /// Bytes of the student part (ciphertext and tag), right after the header.
        public var studentLength: Int
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
                return "sealed package format \(v) is not one this Carrel reads (formats 1 and \(SealedAssessment.formatVersion)); seal it again with this Carrel, or copy the original again if it was damaged"
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
        guard readableVersions.contains(version) else { throw .unsupportedVersion(Int(version)) }
        let fixed = version == 1 ? fixedLength : splitFixedLength
        guard bytes.count >= fixed else { throw .damaged("it is cut short inside the header") }
        guard bytes.count <= maximumBytes else { throw .damaged("it is larger than any sealed assessment (\(bytes.count) bytes)") }
        let metadataLength = bigEndian(bytes, at: fixed - 4)
        guard (2...maximumMetadataBytes).contains(metadataLength) else { throw .damaged("the header's length is impossible") }
        let length = fixed + metadataLength + checksumLength
        guard bytes.count >= length + 1 + tagLength else { throw .damaged("it is cut short") }
        let checksum = Array(SHA256.hash(data: bytes[0..<(fixed + metadataLength)]))
        guard checksum == Array(bytes[(fixed + metadataLength)..<length]) else {
            throw .damaged("the header's checksum does not match")
        }
        guard bytes[15] == scryptID else { throw .damaged("unknown key derivation \(bytes[15])") }
        let cost = Cost(logRounds: Int(bytes[16]), blockSize: Int(bytes[17]), parallelism: Int(bytes[18]))
        if let problem = cost.problem { throw .unreasonableCost(problem) }
        var scoring: ScoringPart?
        if version >= 2 {
            let studentLength = bigEndian(bytes, at: 75)
            // Both parts hold at least one byte and their tag.
            guard studentLength > tagLength, bytes.count - length - studentLength > tagLength else {
                throw .damaged("the length of its student part is impossible")
            }
            scoring = ScoringPart(salt: Array(bytes[47..<63]), nonce: Array(bytes[63..<75]), studentLength: studentLength)
        }
        let metadata: Metadata
        do {
            metadata = try JSONDecoder().decode(Metadata.self, from: Data(bytes[fixed..<(fixed + metadataLength)]))
        } catch {
            throw .damaged("the public metadata cannot be read")
        }
        if let problem = metadata.problem { throw .damaged(problem) }
        return Header(version: version, cost: cost, salt: Array(bytes[19..<35]), nonce: Array(bytes[35..<47]),
                      metadata: metadata, length: length, scoring: scoring)
    }

    static func bigEndian(_ bytes: [UInt8], at i: Int) -> Int {
        Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
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
}
