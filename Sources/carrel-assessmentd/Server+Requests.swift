#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import Foundation
import ModeService

extension Server {
    /// One request line: the caller checked again (the same process, still the trusted Carrel),
    /// the request read, answered.
    func answer(_ line: [UInt8], from connection: Connection) {
        guard let peer = connection.peer else { return }
        if let why = peer.stillTrusted(trusted) {
            log("refused connection \(connection.id) (pid \(peer.pid)): \(why)")
            connection.send(.refused(reason: why))
            connection.closing = true
            return
        }
        let request: ModeRequest
        do { request = try ModeWire.decode(ModeRequest.self, line: Data(line)) } catch {
            connection.send(.refused(reason: "the request cannot be read as one of the service's requests"))
            return
        }
        let caller = Caller(connection: connection.id, uid: peer.uid, account: peer.account)
        let now = Clock.now()
        switch request {
        case .capabilities:
            var found = Capabilities.probe(executor)
            // Whether the lab's store is set here, or the store a session names is let through.
            for i in found.indices where found[i].kind == .network && found[i].available {
                found[i].reason += stores.isEmpty
                    ? "; no store is set for this machine: the store a session names is let through (set it with --store)"
                    : "; the lab's store: " + stores.map(\.description).joined(separator: ", ")
            }
            connection.send(.capabilities(found))
        case let .begin(begin):
            deliver(self.begin(begin, caller: caller, peer: peer, now: now))
        case .end:
            deliver(engine.end(caller))
        case let .resume(session, passphrase):
            passphraseAnswer(engine.resume(session: session, passphrase: passphrase, caller: caller), to: connection, now: now)
        case let .unlock(session, passphrase):
            passphraseAnswer(engine.unlock(session: session, passphrase: passphrase, caller: caller), to: connection, now: now)
        case .status:
            deliver(engine.status(caller))
        }
    }

    func begin(_ begin: ModeBegin, caller: Caller, peer: Peer, now: Double) -> [Outgoing] {
        let started = Clock.now()
        if let why = engine.refusal(begin) { return [Outgoing(caller.connection, .failed(reason: why))] }
        let resolved: ModePlan.Resolved
        // The store the service was told wins over the one a session names: a student who
        // types the command could name any host.
        let named = stores.isEmpty ? begin.store : stores
        switch Resolver.resolve(begin.policy.networkRule == .storeOnly ? named : []) {
        case let .success(found): resolved = found
        case let .failure(error): return [Outgoing(caller.connection, .failed(reason: error.reason))]
        }
        let out = engine.begin(begin, caller: caller, resolved: resolved, now: now) { record in
            watcher.atBegin(record, owner: peer.mark, now: now)
        }
        log("begin for session \(Sanitise.text(begin.session, limit: 80)) answered in \(String(format: "%.1f", (Clock.now() - started) * 1000)) ms")
        return out
    }

    /// A wrong passphrase is answered only after a pause that doubles at each one (1 s, 2 s,
    /// 4 s … at most a minute), and nothing more is read from that connection meanwhile.
    func passphraseAnswer(_ messages: [Outgoing], to connection: Connection, now: Double) {
        for message in messages {
            guard message.connection == connection.id, message.reply == .refused(reason: ModeEngine.wrongPassphrase) else {
                deliver([message])
                continue
            }
            connection.wrongPassphrases += 1
            connection.quietUntil = now + min(60, pow(2, Double(connection.wrongPassphrases - 1)))
            connection.held.append(message.reply)
            log("a wrong passphrase from connection \(connection.id) (pid \(connection.peer?.pid ?? 0))")
        }
    }
}
