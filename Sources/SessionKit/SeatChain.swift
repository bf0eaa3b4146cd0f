import AssessmentKit
import Foundation

/// What a seat's own records say of it, folded from the records that verify with its
/// session's key and nothing else: the console's view of a seat when it holds the proctor's
/// passphrase. The store's summary row is folded from every record anyone with the session's
/// proof sent (before the proctor's start that proof is a token in the seat's journal, which
/// its student can read); this fold is folded from what only the seat could have written.
/// Records that do not verify are counted and named, never applied.
public struct SeatChain: Sendable, Equatable {
    /// The highest store number of a record that verified: the next reading asks for those after it.
    public private(set) var lastSeq: Int64 = 0
    /// The chain places the verified records hold (holes are records the store has not got).
    public private(set) var links: Set<Int64> = []
    /// The session's own start record verified (room, seat, candidate, total, time allowed).
    public private(set) var begun = false
    public private(set) var candidate: String?
    public private(set) var total: Int?
    public private(set) var timeAllowed: Int?
    /// The store's words: active, review, ending, ended, interrupted or abandoned.
    public private(set) var status: String?
    public private(set) var endReason: String?
    public private(set) var answered: [String: Bool] = [:]
    public private(set) var pasteAttempts = 0
    public private(set) var focusLosses = 0
    public private(set) var exitAttempts = 0
    public private(set) var interruptions = 0
    public private(set) var passphraseFailures = 0
    /// down, raised or acknowledged.
    public private(set) var hand = "down"
    public private(set) var paused = false
    /// Seconds the proctor added, by the commands the seat says it applied.
    public private(set) var added = 0
    public private(set) var refused = 0
    public private(set) var lastRefusal: String?
    /// The time used as the seat's journal last saved it.
    public private(set) var elapsed: Double?
    /// Records under the session that do not verify: how many, and the first few named.
    public private(set) var outsideCount = 0
    public private(set) var outside: [String] = []
    /// Records already counted as outside (store number and MAC), so a reading that sees one
    /// again does not count it twice.
    private var counted: Set<String> = []
    /// Commands the seat applied (each applies once, however often its record is read).
    private var applied: Set<String> = []

    /// The most records named one by one; the count goes on.
    public static let namedLimit = 5
    /// The most outside records remembered; beyond, a reading may count one again.
    static let countedLimit = 10_000

    public init() {}

    /// How many items the seat says are answered.
    public var answeredCount: Int { answered.values.filter { $0 }.count }

    /// Whether the session has ended by its seat's own word.
    public var ended: Bool { status == "ended" || status == "abandoned" }

    /// One record as the store holds it: applied when its MAC is the session's, otherwise
    /// counted as not the seat's. Records are read in store order (`seq`); a record read
    /// again (the same number and MAC) changes nothing.
    public mutating func add(session: String, key: [UInt8], seq: Int64, kind: String, body: String?, mac: String?) {
        add(session: session, keys: [key], seq: seq, kind: kind, body: body, mac: mac)
    }

    /// As `add(session:key:…)`, for a session that has had several keys (`SessionKeyChain`).
    public mutating func add(session: String, keys: [[UInt8]], seq: Int64, kind: String, body: String?, mac: String?) {
        let link = SessionMAC.link(of: mac)
        guard let body, SessionKeyChain.verifies(keys, session: session, seq: seq, kind: kind, body: body, mac: mac) else {
            let mark = "\(seq) \(mac ?? "")"
            guard !counted.contains(mark) else { return }
            if counted.count < Self.countedLimit { counted.insert(mark) }
            outsideCount += 1
            if outside.count < Self.namedLimit {
                let what = TerminalSafety.visible(String(kind.prefix(40)), keepLineBreaks: false)
                outside.append("\(what) record \(seq) under session \(session.prefix(8)) was not written by its seat: not counted")
            }
            return
        }
        guard seq > lastSeq || (link.map { !links.contains($0) } ?? false) else { return }
        lastSeq = max(lastSeq, seq)
        if let link { links.insert(link) }
        apply(kind: kind, body: body, seq: seq)
    }

    /// The places missing from the chain so far (`3, 7–9`), or "" for none.
    public var holes: String { ChainPlaces.holes(links) }

    mutating func apply(kind: String, body text: String, seq: Int64) {
        // An authenticated body that does not parse adds nothing (as the store's own fold).
        guard let body = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return }
        if let seconds = Self.number(body["elapsed"]), seconds.isFinite, seconds >= 0 { elapsed = min(seconds, 10_000_000) }
        switch kind {
        case "session":
            begun = true
            candidate = (body["candidate"] as? String).map { String($0.prefix(200)) }
            total = Self.number(body["total"]).map { Int(min(max($0, 0), 1_000_000)) }
            timeAllowed = Self.number(body["time_allowed_seconds"]).map { Int(min(max($0, 0), 10_000_000)) }
        case "answer":
            guard let item = body["item"] as? String else { return }
            answered[item] = (body["answered"] as? Bool) ?? false
        case "status":
            guard let words = body["status"] as? String,
                  ["active", "review", "ending", "ended", "interrupted", "abandoned"].contains(words) else { return }
            let reason = body["end_reason"] as? String
            guard reason == nil || ["submitted", "timed_out", "ended_by_proctor", "ended_by_candidate", "seat_lost"].contains(reason ?? "") else { return }
            status = words
            endReason = reason
        case "resumed":
            status = "active"
            interruptions += 1
        case "event":
            event(kind: body["kind"] as? String ?? "", detail: body["detail"] as? String ?? "", seq: seq)
        default:
            break
        }
    }

    mutating func event(kind: String, detail: String, seq: Int64) {
        switch kind {
        case "paste_blocked": pasteAttempts += 1
        case "focus_lost": focusLosses += 1
        case "exit_attempt": exitAttempts += 1
        case "hand_raised": hand = "raised"
        case "passphrase_failed": passphraseFailures += 1
        case "command_refused":
            refused += 1
            lastRefusal = String(detail.prefix(300))
        case "proctor_command":
            // `#ID[.SEQUENCE] ACTION[ ARGUMENT]`: a command the seat verified and applied.
            let words = detail.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard words.count >= 2, words[0].hasPrefix("#"), !applied.contains(String(words[0])) else { return }
            applied.insert(String(words[0]))
            switch words[1] {
            case "pause": paused = true
            case "resume": paused = false
            case "acknowledge": if hand == "raised" { hand = "acknowledged" }
            case "time":
                if words.count == 3, words[2].count <= 7, let seconds = Int(words[2]), seconds >= 0 { added += seconds }
            default: break
            }
        default: break
        }
    }

    static func number(_ value: Any?) -> Double? {
        if value is Bool { return nil }
        if let number = value as? Double { return number }
        if let number = value as? Int { return Double(number) }
        return (value as? NSNumber)?.doubleValue
    }
}

/// Places in a chain, in words.
public enum ChainPlaces {
    /// The places missing from a chain of places 1…highest, in words (`3, 7–9`); "" for none.
    public static func holes(_ links: Set<Int64>) -> String {
        guard let highest = links.max() else { return "" }
        var runs: [String] = []
        var start: Int64?
        for place in 1...(highest + 1) {
            if place <= highest && !links.contains(place) {
                if start == nil { start = place }
            } else if let first = start {
                runs.append(first == place - 1 ? "\(first)" : "\(first)–\(place - 1)")
                start = nil
            }
            if runs.count == 5 { runs.append("…"); break }
        }
        return runs.joined(separator: ", ")
    }
}

extension SeatView {
    /// The seat as its verified records say it (`chain`), for a session the proctor's start gave
    /// a key: what the store's row says of state, answers, hands, commands and incidents is
    /// replaced; records that did not verify are counted in a warning. Liveness is checked
    /// after this (`checkLiveness`), from the seat's MAC'd claim.
    public mutating func apply(_ chain: SeatChain) {
        if lost {
            // Ended by the proctor as lost: the store fenced its seat, which can change that no more.
            status = "ended"
        } else if !chain.begun && chain.status == nil {
            // Nothing of its own yet: whatever the row says, the session has not begun.
            if !["wrong_test", "candidate_twice"].contains(status) { status = "not_started" }
        } else if chain.ended {
            switch chain.endReason {
            case "submitted": status = "submitted"
            case "timed_out": status = "timed_out"
            default: status = "ended"
            }
        } else if !["wrong_test", "candidate_twice"].contains(status) {
            // Running by its own word, or begun and not yet heard: live or not is the liveness
            // check's to say.
            status = connected ? "active" : "interrupted"
            waiting = false
        }
        if let candidate = chain.candidate { self.candidate = candidate }
        if let total = chain.total { self.total = total }
        answered = chain.answeredCount
        pasteAttempts = chain.pasteAttempts
        focusLosses = chain.focusLosses
        exitAttempts = chain.exitAttempts
        interruptions = chain.interruptions
        passphraseFailures = chain.passphraseFailures
        hand = chain.hand
        paused = chain.paused
        commandsRefused = chain.refused
        lastRefusal = chain.lastRefusal.map { TerminalSafety.visible($0, keepLineBreaks: false) }
        warnings.removeAll { $0.hasPrefix("refused ") && ($0.hasSuffix(" command") || $0.hasSuffix(" commands")) }
        if chain.refused > 0 { warnings.append("refused \(chain.refused) command\(chain.refused == 1 ? "" : "s")") }
        let running = ["active", "interrupted"].contains(status)
        if running, let allowed = chain.timeAllowed ?? timing.allowed {
            // The time used: the seat's pulse (only the seat holding the session's key can send
            // one once the start has given it), never less than its journal last saved.
            let used = max(timing.elapsed, chain.elapsed ?? 0)
            timeLeftSeconds = Int(min(max(Double(allowed + chain.added) - used, 0), 10_000_000).rounded(.down))
        } else if !running {
            timeLeftSeconds = nil
        }
        recordsNotCounted = chain.outsideCount
        if chain.outsideCount > 0 { warnings.append("\(chain.outsideCount) record\(chain.outsideCount == 1 ? "" : "s") not counted") }
    }
}
