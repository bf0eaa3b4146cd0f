import AssessmentKit
import Foundation
import PostgresNIO
import SessionKit

extension SeatPublisher {
    /// The loop: carries out what `PublisherState` asks until `finish` (or the task's
    /// cancellation) stops it, then closes its connection. The command runs it as a child
    /// task beside the session. A seat of a room listens for the proctor's commands (a child
    /// task per connection, ending with it).
    public func run() async {
        await withTaskGroup(of: Void.self) { listeners in
            var link: (any StoreLink)?
            var fact = PublisherFact.woke
            while true {
                let actions = decide(fact)
                var answer: PublisherFact?
                for action in actions {
                    if action == .stop { break }
                    // Cancelled: what an answer already asked of the journal (forget what the
                    // store has, answer a drain) is done; nothing more is asked of the store.
                    if action.awaitsAnswer && Task.isCancelled { break }
                    answer = await perform(action, link: &link, listeners: &listeners)
                    if answer != nil { break }
                }
                guard let next = answer else { break }
                fact = next
            }
            await link?.close()
            listeners.cancelAll()
        }
    }

    /// The state's answer to `fact`; when the store's state changed, `firstAnswer` hears it.
    private func decide(_ fact: PublisherFact) -> [StoreAction] {
        let (actions, changed) = withState { state in
            let before = state.storeState
            let actions = state.update(fact, now: clock.now())
            return (actions, before != state.storeState)
        }
        if changed { signalAnswered() }
        return actions
    }

    /// Carries out one action; an action that awaits an answer returns it as a fact.
    private func perform(_ action: StoreAction, link: inout (any StoreLink)?,
                         listeners: inout TaskGroup<Void>) async -> PublisherFact? {
        switch action {
        case let .noteStore(session, words):
            // A note for `carrel status` only: losing one costs nothing but a stale line there
            // (the outbox itself is untouched).
            try? journal?.noteStore(session: session, state: words, since: Date())
            return nil
        case let .answerDrain(asked):
            _ = withState { $0.drained(asked) }
            drainedBell.ring()
            return nil
        case let .forget(through):
            // Forgetting is housekeeping: a record kept by mistake is sent again and changes
            // nothing in the store.
            try? journal?.removePublished(through: through)
            return nil
        case .startsRead:
            startBell.ring()
            newsArrived()
            return nil
        case .commandsArrived:
            newsArrived()
            return nil
        case .listen:
            if let current = link { listeners.addTask { [self] in await listen(on: current) } }
            return nil
        case .close:
            await link?.close()
            link = nil
            return nil
        case let .wait(seconds):
            await clock.wait(seconds, journal?.outboxBell ?? bell)
            return .woke
        case let .sleep(seconds):
            await clock.wait(seconds, nil)
            return .woke
        case .stop:
            return nil
        case .connect:
            do {
                link = try await opener.open()
                return .connected
            } catch {
                return .connectFailed(Self.describe(error))
            }
        default:
            guard let current = link else { return .failed("the connection was closed") }
            do {
                return try await call(action, on: current)
            } catch {
                await current.close()
                link = nil
                return .failed(Self.describe(error))
            }
        }
    }

    /// One call to the store, and what it answered.
    private func call(_ action: StoreAction, on link: any StoreLink) async throws -> PublisherFact {
        switch action {
        case let .hello(a):
            // Said again on every connection, with the token the store holds now (the key's,
            // once the proctor's start gave one): the first token no longer proves the session.
            let proof = proof(a.session)
            guard try await link.hello(session: a.session, body: a.body, token: proof.token) else {
                try await askFate(a.session, proof: proof, link: link)
                throw StoreRefusal("the store holds session \(a.session) for another seat")
            }
            return .helloSent(session: a.session)
        case let .unlock(session):
            try await link.unlock(session: session)
            return .unlocked
        case let .lock(session):
            let proof = proof(session)
            let granted = try await link.lock(proof)
            if !granted { try await askFate(session, proof: proof, link: link) }
            return .locked(session: session, granted: granted)
        case let .readCommands(room, seat, after, startsAfter):
            // The commands are read as the session this seat runs (or waits to begin) proves it is.
            guard let session = withState({ $0.session ?? $0.announcement?.session }) else {
                return .commandsRead(commands: [], starts: startsAfter.map { _ in [] })
            }
            let proof = proof(session)
            guard let startsAfter else {
                return .commandsRead(commands: try await link.commands(room: room, seat: seat, proof: proof, after: after), starts: nil)
            }
            let read = try await link.commandsAndStarts(room: room, seat: seat, proof: proof, after: after, startsAfter: startsAfter)
            return .commandsRead(commands: read.commands, starts: read.starts)
        case let .rehearse(a):
            try await link.rehearse(SeatProof(session: a.session, token: a.token), records: Self.rehearsal(a))
            return .rehearsed
        case let .pulse(session, elapsed, key):
            let proof = proof(session)
            if let key {
                let mac = SessionMAC.live(key: key, session: session, pid: try await link.serverProcess())
                try await link.live(proof, mac: mac, elapsed: elapsed)
                return .pulsed(session: session, keyed: true)
            }
            if let elapsed { try await link.pulse(proof, elapsed: elapsed) }
            return .pulsed(session: session, keyed: false)
        case let .sendBatch(after, limit, keys, claim):
            guard let journal else { return .outboxEmpty }
            let batch = try journal.outbox(after: after, limit: limit)
            guard let last = batch.last else { return .outboxEmpty }
            let records = SentRecord.latestProgressOnly(batch)
            var proofs: [String: SeatProof] = [:]
            for session in Set(records.map(\.session)) { proofs[session] = proof(session) }
            let sent = records.map { SentRecord($0, keys: keys, proofs: proofs) }
            var live: StoreLiveClaim?
            if let claim {
                let mac = SessionMAC.live(key: claim.key, session: claim.session, pid: try await link.serverProcess())
                live = StoreLiveClaim(proof: proof(claim.session), mac: mac, elapsed: claim.elapsed)
            }
            let kept = try await link.insert(sent, claim: live)
            return .batchSent(through: last.seq, sent: sent.count, kept: kept.kept, session: sent.last?.session,
                              refused: kept.refused, claimed: claim?.session)
        case let .sendRefusals(session, details):
            let proof = proof(session)
            for detail in details { try await link.refused(proof, detail: detail) }
            return .refusalsSent(details.count)
        case let .readMarks(after):
            return .marksRead(last: try await takeMarks(link, after: after))
        default:
            return .woke
        }
    }

    /// What proves `session` to the store: what this run learnt of it, else the token its
    /// journal keeps (a session of an earlier run whose records are still to send), else
    /// nothing the store will take (its records are then kept out, and the seat says so).
    private func proof(_ session: String) -> SeatProof {
        // A journal that cannot be read now proves nothing; the records wait for the next pass.
        let kept = { (try? self.journal?.session(session))??.options.shared?.storeToken }
        if var known = withState({ $0.proof(session) }) {
            // A session resumed with its key names the journal's token as the one it replaces:
            // the store may not have moved to the key's token before the seat stopped.
            if known.previous == nil, withState({ $0.sessionKeys[session] != nil }), let first = kept(), first != known.token {
                known.previous = first
            }
            return known
        }
        if let token = kept() { return SeatProof(session: session, token: token) }
        return SeatProof(session: session, token: "")
    }

    /// Listens on `link` until its connection ends, then wakes the loop to find out.
    private func listen(on link: any StoreLink) async {
        let connection = withState { $0.connection }
        await link.listen(started: { [self] in tellListener(.listening(true, connection: connection)) },
                          heard: { [self] in tellListener(.commandsNoticed) })
        tellListener(.listening(false, connection: connection))
    }

    private func tellListener(_ fact: PublisherFact) {
        _ = withState { $0.update(fact, now: clock.now()) }
        ring()
    }

    /// Records in the journal the marks given in the store to its ended sessions, once each;
    /// returns the last mark number read.
    private func takeMarks(_ link: any StoreLink, after: Int64) async throws -> Int64 {
        guard let journal, let storage = resultStorage else { return after }
        guard try !journal.sessions(status: [.ended]).isEmpty else { return after }
        var last = after
        // Each session's own first token reads its marks (the store keeps it for that).
        let proofs = try journal.sessions(status: [.ended]).suffix(1000).map { record in
            SeatProof(session: record.id, token: record.options.shared?.storeToken ?? withState { $0.proof(record.id)?.token } ?? "")
        }
        guard !proofs.isEmpty else { return after }
        for mark in try await link.marks(proofs, after: after) {
            last = max(last, mark.id)
            guard try !journal.hasMark(session: mark.session, item: mark.item, at: mark.at) else { continue }
            // A mark the journal refuses (an item the session's test lacks, points above its
            // worth) is the proctor's to give again; one that failed to be written (a full
            // disk) is read again by the next publishing run, which reads every mark from the
            // start. The journal's own marks are untouched either way.
            _ = try? journal.recordMark(session: mark.session, item: mark.item, points: mark.points, comment: mark.comment,
                                        at: mark.at, storage: storage)
        }
        return last
    }

    /// What a seat waiting for the proctor's start sends once per connection: the records its
    /// begin will send (its first records, their check, its claim of liveness), rolled back by
    /// the store. A server process runs a statement the first time it meets it several times
    /// slower than afterwards (it loads the tables' descriptions and compiles and plans the
    /// functions and triggers: about 6 ms a seat). A room's seats pay that now, one by one
    /// while they wait, instead of all at once on the store when the proctor starts them.
    static func rehearsal(_ a: Announcement) -> [SentRecord] {
        let records: [(kind: String, body: String)] = [
            ("session", a.body),
            ("event", #"{"kind":"began","detail":""}"#),
            ("event", ##"{"kind":"proctor_command","detail":"#0 start"}"##),
            ("progress", #"{"position":0,"elapsed":0}"#),
        ]
        return records.enumerated().map { i, r in
            SentRecord(session: a.session, seq: Int64(i + 1), kind: r.kind, at: Date(), body: r.body, mac: "", token: a.token)
        }
    }

    /// One line about a store error, without the URL's password (PostgresNIO's errors do not
    /// carry it) and without anything a terminal would act on.
    public static func describe(_ error: any Error) -> String {
        TerminalSafety.visible(String(rawDescription(error).prefix(300)), keepLineBreaks: false)
    }

    static func rawDescription(_ error: any Error) -> String {
        if let psql = error as? PSQLError {
            if let message = psql.serverInfo?[.message] { return "the server said: \(message)" }
            switch psql.code {
            case .authMechanismRequiresPassword:
                return "the server asks for a password and none was found (~/.pgpass, PGPASSFILE, PGPASSWORD or the URL)"
            case .sslUnsupported:
                return "the server does not offer TLS (add ?sslmode=disable for a server on this machine or a trusted network)"
            case .unsupportedAuthMechanism:
                return "the server asks for a way of logging in Carrel does not support (use scram-sha-256 or md5)"
            case .saslError:
                return "the password was refused"
            case .connectionError:
                let detail = psql.underlying.map { "\($0)" } ?? ""
                if detail.contains("refused") { return "the connection was refused (is PostgreSQL running there?)" }
                if detail.lowercased().contains("timed out") || detail.contains("timeout") { return "no answer in time" }
                if detail.contains("resolve") || detail.contains("NXDOMAIN") || detail.contains("getaddrinfo") { return "the host name cannot be found" }
                return "cannot connect"
            case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: return "the connection was closed"
            default: return "\(psql.code)"
            }
        }
        if let problem = error as? SharedSchema.Problem { return problem.description }
        if let transaction = error as? PostgresTransactionError {
            return rawDescription(transaction.closureError ?? transaction.commitError ?? transaction.beginError ?? error)
        }
        return "\(error)"
    }
}
