#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import Localization
import SharedStore
import TerminalUI

/// A seat joining its room's plan before its start screen: the test must be the room's, a
/// roster names the candidate (and their accommodations), and a proctor-started room waits.
struct RoomJoin: Sendable {
    var plan: SeatRoomPlan
    /// The candidate found on the roster and confirmed at the seat.
    var match: RosterMatch?
    /// The test's fingerprint (a sealed package's own).
    var fingerprint: String
    /// The session the seat announces itself with, and its token: chosen before the roster is
    /// asked, so that the candidate found is this session's alone.
    var session = SessionIDs.random.sessionID()
    var token = SessionMAC.randomToken()
    /// The seat where the candidate's session is, when they asked the proctor to move it here.
    var moveFrom: String?

    /// Reads the plan; nil when the room has none (the seat runs as before). A store that
    /// cannot be read now is asked again until it answers: a seat of a room never goes on
    /// without its plan (it would skip the roster and the proctor's start, and ask for a
    /// passphrase the room never meant it to take).
    static func join(_ take: TakeCommand, launch: TakeCommand.Launch, url: SharedURL) async throws(CarrelFailure) -> RoomJoin? {
        let label = take.lab.label()
        let plan = await readPlan(url, label: label)
        guard let plan else { return nil }
        let assessment = launch.assessment
        let fingerprint = launch.header?.metadata.fingerprint ?? Fingerprint.of(assessment)
        var join = RoomJoin(plan: plan, match: nil, fingerprint: fingerprint)
        if fingerprint != plan.fingerprint {
            await SeatRoom.reportRefused(url, .wrongTest, session: join.session, token: join.token, label: label, candidate: take.candidate, assessmentID: assessment.id,
                                           assessmentTitle: assessment.title, fingerprint: fingerprint,
                                           attestation: SeatFacts.attestation(fingerprint: fingerprint, policy: assessment.policy))
            throw CarrelFailure(status: .refused, message: "this is not the test of room \(TerminalSafety.visible(label.room, keepLineBreaks: false)): \(take.file) is \(fingerprint.prefix(19))…, the room's is \(plan.fingerprint.prefix(19))… (\(TerminalSafety.visible(plan.assessmentTitle, keepLineBreaks: false))); ask the proctor")
        }
        if plan.hasRoster {
            var given: [String] = []
            if take.candidate != nil { given.append("--candidate") }
            if take.extraTime != nil { given.append("--extra-time") }
            if take.display.screenReader { given.append("--screen-reader") }
            if take.display.theme != nil { given.append("--theme") }
            if !given.isEmpty {
                throw CarrelFailure(status: .usage, message: "room \(TerminalSafety.visible(label.room, keepLineBreaks: false)) has a roster: \(given.joined(separator: ", ")) come\(given.count == 1 ? "s" : "") from the roster only; launch without \(given.count == 1 ? "it" : "them")")
            }
            (join.match, join.moveFrom) = try await join.identify(url, label: label, assessment: assessment, language: take.display.language)
        }
        return join
    }

    /// The room's plan, asked again (every 1 s, then up to every 10 s) while the store cannot
    /// be read, saying so each time; Ctrl-C stops the seat.
    static func readPlan(_ url: SharedURL, label: SharedLabel) async -> SeatRoomPlan? {
        var wait = 1.0
        var said = ""
        while true {
            do {
                return try await SeatRoom.plan(url, room: label.room, seat: label.seat)
            } catch {
                let why = url.redacting(SeatPublisher.describe(error))
                if why != said {
                    Console.error("cannot read the plan of room \(TerminalSafety.visible(label.room, keepLineBreaks: false)) (\(why)); this seat waits for the store and tries again (Ctrl-C stops it)")
                    said = why
                }
                try? await Task.sleep(nanoseconds: UInt64(wait * 1e9))
                wait = min(wait * 2, 10)
            }
        }
    }

    /// Asks the candidate number until the roster knows it and the candidate confirms the name:
    /// `Identification` decides, this asks, looks up and says.
    func identify(_ url: SharedURL, label: SharedLabel, assessment: Assessment, language: String?) async throws(CarrelFailure)
        -> (RosterMatch, moveFrom: String?) {
        let out = FileOutput.standardOutput
        let v = { (text: String) in TerminalSafety.visible(text, keepLineBreaks: false) }
        // The seat's language (its --language, the test's, the environment's) until the roster
        // names the candidate's own; the candidate's from the question "is this you?" on.
        var say = Localizer((try? LanguagePick.choose(option: language, assessment: assessment.language))?.language ?? .en)
        var state = Identification(codes: plan.codeSalt != nil)
        var pending = state.update(.start)
        while !pending.isEmpty {
            var answers: [Identification.Message] = []
            for effect in pending {
                switch effect {
                case .askNumber:
                    out.write(say("Candidate number: "))
                    answers.append(.typed(readLine(strippingNewline: true)))
                case .askCode:
                    answers.append(.typedCode(Self.secretLine(prompt: say("Candidate code (not shown): "))))
                case let .lookUp(number, code):
                    do {
                        switch try await SeatRoom.candidate(url, room: label.room, seat: label.seat, number: number, code: code,
                                                            codeSalt: plan.codeSalt, session: session, token: token) {
                        case let .found(match): answers.append(.lookedUp(number: number, match))
                        case .noMatch: answers.append(.lookedUp(number: number, nil))
                        case let .held(candidate): answers.append(.held(candidate: candidate))
                        }
                    } catch {
                        answers.append(.lookupFailed(url.redacting(SeatPublisher.describe(error))))
                    }
                case let .tell(line):
                    switch line {
                    case .typeTheCardNumber:
                        out.write(say("Type the number on your candidate card.") + "\n")
                    case let .notOnRoster(number):
                        out.write(say("Candidate {0} is not on the roster of this room. Check the number, or ask the proctor.", .s(v(number))) + "\n")
                    case .numberOrCodeWrong:
                        out.write(say("That candidate number and code do not match the roster. Check your card, or ask the proctor.") + "\n")
                    case let .held(candidate):
                        out.write(say("Candidate {0} is held after too many wrong codes. Ask the proctor.", .s(v(candidate))) + "\n")
                    case let .seatedElsewhere(candidate, seat):
                        out.write(say("Candidate {0} is already seated at {1}; the proctor has been shown both seats. Ask the proctor.", .s(v(candidate)), .s(v(seat))) + "\n")
                    }
                case let .reportSeatedTwice(match):
                    // A session of its own for the refusal: this one goes on to ask the number again.
                    await SeatRoom.reportRefused(url, .candidateTwice, session: SessionIDs.random.sessionID(),
                                                 token: SessionMAC.randomToken(), label: label, candidate: match.candidate,
                                                 assessmentID: assessment.id, assessmentTitle: assessment.title, fingerprint: fingerprint,
                                                 attestation: SeatFacts.attestation(fingerprint: fingerprint, policy: assessment.policy))
                case let .askConfirmation(match):
                    // The candidate's own language, when the roster gives one Carrel speaks.
                    if let tag = match.language, let theirs = Language(tag: tag) { say = Localizer(theirs) }
                    out.write(say("{0} — is this you? {1}/N", .s(v(match.name)), .s(TakeKeys.yesLetter(say))) + " ")
                    answers.append(.answered(Self.confirmed(say)))
                case let .askMove(match, from):
                    if let tag = match.language, let theirs = Language(tag: tag) { say = Localizer(theirs) }
                    out.write(say("{0} ({1}) has a session at seat {2}. Ask the proctor to move it to this seat? {3}/N",
                                  .s(v(match.name)), .s(v(match.candidate)), .s(v(from)), .s(TakeKeys.yesLetter(say))) + " ")
                    answers.append(.answered(Self.confirmed(say)))
                case let .identified(match):
                    return (match, nil)
                case let .identifiedToMove(match, from):
                    return (match, from)
                case let .fail(status, message):
                    throw CarrelFailure(status: status, message: say.known(message, context: "identification"))
                }
            }
            pending = answers.flatMap { state.update($0) }
        }
        throw CarrelFailure(status: .internalError, message: "the candidate's identification stopped without an answer; nothing was started")
    }
}

extension RoomJoin {
    /// A line typed without echo at a terminal (a candidate's code); elsewhere a line.
    static func secretLine(prompt: String) -> String? {
        let reader = SecretReader()
        defer { reader.finish() }
        // A line that is not UTF-8, or too long, is no code: asked again as a wrong one.
        return (try? reader.readIfAny(prompt: prompt)) ?? nil
    }

    /// The answer to "is this you? y/N": at a terminal one key, as every y/N question of Carrel
    /// (y, or the language's own yes — o, j, s, はい — is yes, anything else no), with an Enter
    /// typed right after it taken with it so that it does not reach the start screen; elsewhere
    /// a line (`y`, `yes`, or the language's letter or word).
    static func confirmed(_ say: Localizer) -> Bool {
        guard isatty(0) == 1, let saved = EchoGuard.disable() else {
            return isYes(readLine(strippingNewline: true) ?? "", say: say)
        }
        defer { EchoGuard.restore(saved) }
        func keys(minimum: cc_t, tenths: cc_t) {
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ECHONL)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = minimum
                cc[Int(VTIME)] = tenths
            }
            _ = tcsetattr(0, TCSANOW, &raw)
        }
        keys(minimum: 1, tenths: 0)
        var key: UInt8 = 0
        let first = read(0, &key, 1) == 1 ? [key] : []
        // What came with the key (the rest of a character typed through an input method, an
        // Enter after it, the rest of an arrow's sequence) is read with it: a word such as はい
        // is one answer, and nothing of it reaches the next screen.
        keys(minimum: 0, tenths: 3)
        var typedBytes = first
        var rest = [UInt8](repeating: 0, count: 64)
        // Until nothing more comes for 0.3 s (an input method may send a word a character at a time).
        while typedBytes.count < 256 {
            let more = read(0, &rest, rest.count)
            guard more > 0 else { break }
            typedBytes += rest.prefix(more)
        }
        tcflush(0, TCIFLUSH)
        let typed = String(decoding: typedBytes, as: UTF8.self)
        // One key decides at a terminal: what follows it (an Enter) is not part of the answer,
        // except the rest of a word typed through an input method.
        let answer = typed.unicodeScalars.first.map { $0.isASCII ? String($0) : typed } ?? ""
        let yes = isYes(answer, say: say)
        FileOutput.standardOutput.write(yes ? "\(TakeKeys.yesLetter(say))\n" : "n\n")
        return yes
    }

    /// Whether `answer` says yes: y or yes in any language Carrel speaks, the candidate's own
    /// letter (o, j, s) or word (oui, ja, sí, はい).
    static func isYes(_ answer: String, say: Localizer) -> Bool {
        let typed = answer.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard !typed.isEmpty else { return false }
        if typed == "y" || typed == "yes" { return true }
        if typed == TakeKeys.yesLetter(say).lowercased() { return true }
        return typed == say("⟨answer⟩yes").lowercased()
    }
}

/// What a seat says of itself to the console.
enum SeatFacts {
    static func attestation(fingerprint: String, policy: RestrictionPolicy) -> [String: String] {
        var size = winsize()
        let terminal = ioctl(1, UInt(TIOCGWINSZ), &size) == 0 ? "\(size.ws_col)x\(size.ws_row)" : "unknown"
        let rules = policy.summary.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        return [
            "carrel_version": SelfAttestation.version, "executable_digest": SelfAttestation.digest,
            "fingerprint": fingerprint, "terminal": terminal, "policy": String(rules.prefix(300)),
        ]
    }
}
