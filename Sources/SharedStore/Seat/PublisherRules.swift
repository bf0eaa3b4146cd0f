import AssessmentKit
import Foundation
import SessionKit

extension PublisherState {
    /// Takes in `fact` at `now` (the session clock's monotonic seconds) and says what to do
    /// next. Facts from the session return no action (the publisher is woken instead); the
    /// answer to an action returns the local actions due and one action to answer.
    public mutating func update(_ fact: PublisherFact, now: Double) -> [StoreAction] {
        switch fact {
        case let .announced(a):
            // A seat announces itself only while no session of its runs (the start screen of
            // `take`, or the workshop test opened from the demo), so the session is this one.
            announcement = a
            session = a.session
            tokens[a.session] = a.token
            return []
        case let .started(journal):
            started = true
            hasJournal = hasJournal || journal
            return []
        case let .progress(s, e):
            session = s
            elapsed = e
            return []
        case let .follow(room, seat, after):
            follow = (room, seat)
            received = max(received, after)
            startAfter = max(startAfter, after)
            return []
        case let .authenticated(s, key):
            sessionKeys[s] = key
            return []
        case let .proven(s, token):
            if tokens[s] == nil { tokens[s] = token }
            return []
        case let .refusal(detail):
            refusals.append(detail)
            return []
        case .left:
            session = nil
            elapsed = nil
            announcement = nil
            dropConnection = true
            // A store `required` by the next test is asked again, not taken from this connection.
            storeState = .connecting
            return []
        case .keepMarks:
            keepsMarks = true
            return []
        case .drainAsked:
            drainAsked += 1
            return []
        case .finishing:
            stopping = true
            return []
        case let .listening(on, number):
            // A listener of an earlier connection that ends late says nothing of this one's.
            guard number == connection else { return [] }
            listening = on
            if on { commandsTold = true }
            return []
        case .commandsNoticed:
            commandsTold = true
            return []

        case .woke:
            round = Round(asked: drainAsked)
            return plan(now)
        case .connected:
            connected = true
            connection += 1
            rehearseAt = now + (reconnecting ? random.unit() * timing.rehearsalSpread : 0)
            reconnecting = true
            claimed = Claimed()
            backoff = timing.firstBackoff
            readCommandsFirst = true
            return note(.connected) + plan(now)
        case let .connectFailed(why):
            // Stopped while connecting: that says nothing about the store.
            if stopping { return [.stop] }
            return note(.unreachable(why)) + [.sleep(nextBackoff())]
        case let .failed(why):
            // Stopped mid-call: the store did nothing wrong, and `status` must not say it did.
            if stopping { return [.stop] }
            connected = false
            round = Round(asked: drainAsked)
            return note(.unreachable(why)) + [.close, .sleep(nextBackoff())]
        case let .helloSent(s):
            claimed.announced = s
            return plan(now)
        case .unlocked:
            claimed.locked = nil
            return plan(now)
        case let .locked(s, granted):
            round.lockTried = true
            if granted { claimed.locked = s }
            return plan(now)
        case let .commandsRead(commands, newStarts):
            return took(commands, starts: newStarts) + plan(now)
        case .rehearsed:
            return plan(now)
        case let .pulsed(s, keyed):
            if keyed { claimed.live = s }
            return plan(now)
        case .outboxEmpty:
            round.outboxEmpty = true
            return [.answerDrain(round.asked)] + plan(now)
        case let .batchSent(through, sent, kept, last, refused, claim):
            confirmed = through
            if let claim { claimed.live = claim }
            var out: [StoreAction] = []
            if kept < Int64(sent) {
                let missing = sent - Int(kept)
                let why = refused.map { "refused: \(TerminalSafety.visible(String($0.prefix(200)), keepLineBreaks: false))" }
                    ?? "replaced by others written first"
                out += note(.notKept("\(missing) of \(sent) record\(sent == 1 ? "" : "s") \(why)"), session: last)
            }
            out.append(.forget(through: through))
            // The next pass starts at once; a long backlog does not hold the pulse back (a
            // console would see the seat as gone).
            round = Round(asked: drainAsked)
            if let s = session, let e = elapsed, now - lastPulse >= timing.pulse {
                lastPulse = now
                return out + [.pulse(session: s, elapsed: e, key: sessionKeys[s])]
            }
            return out + plan(now)
        case let .refusalsSent(count):
            refusals.removeFirst(min(count, refusals.count))
            round.refusalsSent = true
            return plan(now)
        case let .marksRead(last):
            marksAfter = max(marksAfter, last)
            return plan(now)
        }
    }

    /// The next thing due on this pass.
    mutating func plan(_ now: Double) -> [StoreAction] {
        if stopping { return [.stop] }
        // Nothing to do until a seat announces itself or a session starts publishing.
        guard started else { return [.wait(1)] }
        var out: [StoreAction] = []
        if dropConnection {
            dropConnection = false
            // Closing ends the session's advisory lock: the console sees the seat leave; what
            // is left to send goes on a new connection.
            if connected {
                connected = false
                out.append(.close)
            }
        }
        if let session, hasJournal, notedSession != session {
            notedSession = session
            // The state said before the session existed goes into its row now.
            out.append(.noteStore(session: session, words: storeState.words))
        }
        guard connected else { return out + [.connect] }
        // A waiting seat says who it is first: its start is the one given after its hello.
        // A running session reads the commands it missed before anything else.
        let waitingSeat = !hasJournal
        if waitingSeat, let claim = nextClaim(journalOpen: false) { return out + [claim] }
        if readCommandsFirst, let follow {
            readCommandsFirst = false
            lastCommandRead = now
            return out + [readCommands(follow, waiting: waitingSeat)]
        }
        if !waitingSeat, let claim = nextClaim(journalOpen: true) { return out + [claim] }
        // The server process the begin will use is the one to rehearse on, once per
        // connection; not when a start has just been read: the begin itself is due.
        if waitingSeat, let waiting = announcement, claimed.announced == waiting.session, let due = rehearseAt,
           now >= due, starts.isEmpty {
            rehearseAt = nil
            return out + [.rehearse(waiting)]
        }
        // Liveness only this seat can claim, once it has read the commands it waits for. The
        // claim is the pulse too (it carries the time used): the next one is due a pulse later.
        // It goes with the outbox's next batch when there is one (a begin's first records).
        if let session, claimed.live != session, let key = sessionKeys[session] {
            lastPulse = now
            let claim = LiveClaim(session: session, elapsed: elapsed, key: key)
            if hasJournal, !round.outboxEmpty {
                return out + [.sendBatch(after: confirmed, limit: timing.batchSize, keys: sessionKeys, claim: claim)]
            }
            return out + [.pulse(session: session, elapsed: elapsed, key: key)]
        }
        if hasJournal, !round.outboxEmpty {
            return out + [.sendBatch(after: confirmed, limit: timing.batchSize, keys: sessionKeys)]
        }
        return out + routine(now, waitingSeat: waitingSeat)
    }

    /// With the outbox sent: refusals, commands, marks, the pulse, then the wait.
    mutating func routine(_ now: Double, waitingSeat: Bool) -> [StoreAction] {
        var out: [StoreAction] = []
        if waitingSeat, let waiting = announcement?.session, !refusals.isEmpty, !round.refusalsSent {
            return [.sendRefusals(session: waiting, details: refusals)]
        }
        if let follow {
            if listenerOn != connection {
                // One listener per connection; it ends when its connection closes.
                listenerOn = connection
                out.append(.listen)
            }
            if !round.commandsChecked {
                round.commandsChecked = true
                // A notice is read at most once every `commandNoticeGap`; one that comes sooner
                // stays told, and the wait below ends when the gap does.
                let told = commandsTold && now - lastCommandRead >= timing.commandNoticeGap
                if told || now - lastCommandRead >= commandFallbackNow {
                    commandsTold = false
                    lastCommandRead = now
                    return out + [readCommands(follow, waiting: waitingSeat)]
                }
            }
        }
        if hasJournal, keepsMarks, !round.marksChecked, now - lastMarkRead >= timing.marks {
            round.marksChecked = true
            lastMarkRead = now
            return out + [.readMarks(after: marksAfter)]
        }
        if let session, let elapsed, now - lastPulse >= timing.pulse {
            lastPulse = now
            return out + [.pulse(session: session, elapsed: elapsed, key: sessionKeys[session])]
        }
        return out + [.wait(pause(now))]
    }

    /// Sleep until the next thing due: the pulse of a running session, the fallback read of
    /// commands, a rehearsal put off after a reconnection, at most `idleWait`. A seat waiting
    /// at its start screen must not wake twenty times a second for nothing: what changes what
    /// is due (a session begins, a notice, the end) wakes it.
    func pause(_ now: Double) -> Double {
        var pause = timing.idleWait
        if session != nil, elapsed != nil {
            pause = min(pause, max(timing.pulse / 40, timing.pulse - (now - lastPulse)))
        }
        if follow != nil {
            pause = min(pause, max(timing.commandFallback / 100, commandFallbackNow - (now - lastCommandRead)))
            if commandsTold {
                pause = min(pause, max(timing.commandNoticeGap / 10, timing.commandNoticeGap - (now - lastCommandRead)))
            }
        }
        if !hasJournal, announcement != nil, let due = rehearseAt, due > now {
            pause = min(pause, max(timing.commandFallback / 100, due - now))
        }
        return pause
    }

    /// The announcement, the release of a lock held for an earlier session, and the running
    /// session's advisory lock, each once per connection (a lock refused is asked again on
    /// the next pass).
    mutating func nextClaim(journalOpen: Bool) -> StoreAction? {
        if let a = announcement, claimed.announced != a.session, !journalOpen || session == a.session {
            return .hello(a)
        }
        guard let session, claimed.locked != session, !round.lockTried else { return nil }
        // The seat moved on to another session (a demo): its old one is not live.
        if let old = claimed.locked { return .unlock(session: old) }
        return .lock(session: session)
    }

    func readCommands(_ follow: (room: String, seat: String), waiting: Bool) -> StoreAction {
        .readCommands(room: follow.room, seat: follow.seat, after: received, startsAfter: waiting ? startAfter : nil)
    }

    var commandFallbackNow: Double { listening ? timing.commandFallbackListening : timing.commandFallback }
    var longestBackoff: Double { follow == nil ? timing.longestBackoff : timing.longestBackoffInRoom }

    /// A wait of up to the current backoff (a twentieth of it at least), drawn anew each time:
    /// the seats of a room that lost the store together do not all knock at the same instant
    /// when it returns. The backoff doubles up to its longest.
    mutating func nextBackoff() -> Double {
        let wait = backoff * (0.05 + 0.95 * random.unit())
        backoff = min(backoff * 2, longestBackoff)
        return wait
    }

    /// The store's state as the seat knows it, noted in the journal when it changes (for
    /// `carrel status`). Records the store did not keep stay said until this seat has gone.
    mutating func note(_ new: SeatPublisher.StoreState, session noted: String? = nil) -> [StoreAction] {
        if case .notKept = storeState, new == .connected { return [] }
        guard storeState != new else { return [] }
        storeState = new
        guard hasJournal, let s = noted ?? session else { return [] }
        return [.noteStore(session: s, words: new.words)]
    }

    /// Commands read: those numbered past the last received, in order, join the inbox; the
    /// starts replace those read before.
    mutating func took(_ commands: [SignedCommand], starts newStarts: [SignedCommand]?) -> [StoreAction] {
        var fresh: [SignedCommand] = []
        var highest = received
        for command in commands where command.id > highest {
            highest = command.id
            fresh.append(command)
        }
        var out: [StoreAction] = []
        if highest > received {
            received = highest
            inbox += fresh
            out.append(.commandsArrived)
        }
        guard let newStarts else { return out }
        starts = newStarts
        return newStarts.isEmpty ? out : out + [.startsRead]
    }

    /// The commands after `after`, in order; those up to it (applied or refused) are forgotten.
    public mutating func commands(after: Int64) -> [SignedCommand] {
        inbox.removeAll { $0.id <= after }
        return inbox
    }

    /// True the first time a start is refused (it is reported to the console once).
    mutating func refusedStart(_ id: Int64) -> Bool { refusedStarts.insert(id).inserted }

    /// The loop found the outbox empty after `asked` was read: a `finish` waiting for it is done.
    mutating func drained(_ asked: Int) -> Bool {
        drainAnswered = max(drainAnswered, asked)
        return drainAnswered >= drainAsked
    }
}
