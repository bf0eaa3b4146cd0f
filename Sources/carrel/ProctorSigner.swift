import AssessmentKit
import Foundation
import SessionKit
import SharedStore
import Synchronization

/// The proctor passphrase, held by the console or one `carrel proctor ACTION` in its memory
/// only, and the signing keys it derives: one per room test's key, derived once (scrypt takes
/// a moment) and checked against that public key before anything is signed.
final class ProctorSigner: Sendable {
    private let passphrase: String?
    private let keys = Mutex<[String: ProctorSigningKey]>([:])
    private let packageKeys = Mutex<[String: [UInt8]]>([:])

    var hasPassphrase: Bool { passphrase != nil }

    /// A signer with the proctor passphrase read once: from standard input's first line
    /// (`fromStandardInput`), or asked without echo, naming what it signs.
    static func reading(fromStandardInput: Bool, signs what: String) throws(CarrelFailure) -> ProctorSigner {
        let reader = SecretReader(prompting: !fromStandardInput)
        defer { reader.finish() }
        return ProctorSigner(passphrase: try reader.read(prompt: "Proctor passphrase (signs \(what)): "))
    }

    /// A sealed test opened with the proctor's passphrase (the room's test, to make a result).
    func openSealed(_ loaded: AssessmentFile.Loaded, path: String) throws(CarrelFailure) -> Assessment {
        try SealedFile.open(loaded, path: path, passphrase: passphrase ?? "")
    }

    init(passphrase: String?) {
        self.passphrase = passphrase
    }

    /// The key to sign `room`'s commands with, or why its seats cannot be commanded.
    func key(room: String, plan: RoomPlan?) throws(CarrelFailure) -> (key: ProctorSigningKey, fingerprint: String) {
        let name = TerminalSafety.visible(room, keepLineBreaks: false)
        guard let plan, plan.closedAt == nil else {
            throw CarrelFailure(status: .refused, message: "room \(name) has no open plan (`carrel room open`): its seats can be watched but not commanded, since a seat obeys only commands signed for its room's test")
        }
        guard let text = plan.proctorKey else {
            throw CarrelFailure(status: .refused, message: "room \(name)'s test has no proctor key (`proctor: key:`): its seats can be watched but not commanded; add the `key:` line `carrel passphrase` prints and open the room again")
        }
        guard let key = try? ProctorKey(parsing: text) else {
            throw CarrelFailure(status: .refused, message: "room \(name)'s plan holds a proctor key this Carrel cannot read; open the room again from the test file")
        }
        if let known = keys.withLock({ $0[text] }) { return (known, plan.fingerprint) }
        guard let passphrase else {
            throw CarrelFailure(status: .refused, message: "no proctor passphrase was given, so nothing can be signed: this console only watches")
        }
        guard let signing = key.signingKey(passphrase: passphrase) else {
            throw CarrelFailure(status: .wrongPassphrase, message: "wrong proctor passphrase for room \(name)'s test: its key was not made from it, so no command was sent")
        }
        keys.withLock { $0[text] = signing }
        return (signing, plan.fingerprint)
    }

    /// A sealed room's package key, derived from the passphrase with the plan's parameters
    /// (once per room plan); nil for a plain test.
    func packageKey(room: String, plan: RoomPlan) throws(CarrelFailure) -> [UInt8]? {
        guard let package = plan.package else { return nil }
        if let known = packageKeys.withLock({ $0[package] }) { return known }
        let name = TerminalSafety.visible(room, keepLineBreaks: false)
        let parts = package.split(separator: "$").map(String.init)
        guard parts.count == 2, case let .success(cost) = SealedAssessment.Cost.reading(parts[0]),
              let salt = Data(base64Encoded: parts[1]), salt.count == 16, let passphrase else {
            throw CarrelFailure(status: .refused, message: "room \(name)'s plan holds sealed-test parameters this Carrel cannot read; open the room again from the sealed file")
        }
        // The plan is the store's. Its salt is exactly a sealed header's length: a longer one
        // could be the signing key's label and salt, and the console would wrap its own signing
        // seed to a seat. A cheaper derivation than any `carrel seal` makes would hand a made-up
        // seat a fast way to guess the passphrase. Never below the sealing standard.
        let standard = SealedAssessment.Cost.standard
        guard cost.logRounds >= standard.logRounds, cost.blockSize >= standard.blockSize else {
            throw CarrelFailure(status: .refused, message: "room \(name)'s plan asks for a package key cheaper than any sealed test has (scrypt ln=\(cost.logRounds), r=\(cost.blockSize)); it was changed in the store: open the room again from the sealed file")
        }
        do throws(SealedAssessment.Failure) {
            let key = try SealedAssessment.packageKey(passphrase: passphrase, salt: Array(salt), cost: cost)
            packageKeys.withLock { $0[package] = key }
            return key
        } catch {
            throw CarrelFailure(status: .refused, message: "room \(name)'s sealed test: \(error.description)")
        }
    }

    /// One start per waiting seat, each for that seat's session and carrying its secrets
    /// wrapped to the key the seat announced: the session's key, and a sealed test's package
    /// key. A seat of a sealed room that announced no key cannot be started (it is left out
    /// and named in `left`); a plain room's is started without keys (its session unverified).
    func starts(room: String, plan: RoomPlan, seats: [SeatView], key: ProctorSigningKey) throws(CarrelFailure)
        -> (targets: [CommandTarget], left: [SeatView]) {
        let package = try packageKey(room: room, plan: plan)
        let publicKey = plan.proctorKey.flatMap { try? ProctorKey(parsing: $0) }
        var targets: [CommandTarget] = []
        var left: [SeatView] = []
        for seat in seats {
            // A session the proctor started with keys is never sent keys again (a row the store
            // set back to waiting, with a key swapped in, would otherwise get them).
            let started = SignedCommand(id: 0, envelope: seat.liveness.startEnvelope, signature: seat.liveness.startSignature)
            if let publicKey, let earlier = started.envelope(signedBy: publicKey), earlier.session == seat.session, earlier.keys != nil {
                left.append(seat)
                continue
            }
            guard let seatKey = seat.seatKey else {
                if package != nil {
                    left.append(seat)
                } else {
                    targets.append(CommandTarget(seat: seat.seat, session: seat.session))
                }
                continue
            }
            let secrets = SeatSecrets(sessionKey: key.sessionKey(seat.session, seatKey: seatKey), packageKey: package)
            // A seat key that is not an X25519 key gets no keys (a sealed room's seat is left out).
            guard let wrapped = try? KeyWrap.wrap(secrets, to: seatKey, session: seat.session) else {
                if package != nil {
                    left.append(seat)
                } else {
                    targets.append(CommandTarget(seat: seat.seat, session: seat.session))
                }
                continue
            }
            targets.append(CommandTarget(seat: seat.seat, session: seat.session, keys: wrapped, seatKey: seatKey))
        }
        return (targets, left)
    }

    /// Checks each seat's liveness with the proctor's key for its room (`SeatView.checkLiveness`);
    /// seats of rooms this signer cannot sign for are left as the store says.
    func check(_ seats: inout [SeatView], plans: [String: RoomPlan]) {
        guard passphrase != nil else { return }
        for i in seats.indices {
            let room = seats[i].room
            // A closed room's seats are checked as an open one's. A room whose key cannot be read
            // or derived is left as the store says (the console shows no `verified` for it).
            guard var plan = plans[room], let text = plan.proctorKey, let key = try? ProctorKey(parsing: text) else { continue }
            plan.closedAt = nil
            guard let (signing, _) = try? self.key(room: room, plan: plan) else { continue }
            seats[i].checkLiveness(key: key, signing: signing, proctorStarts: plan.startMode == .proctor)
        }
    }

    /// The keys of the rooms of `plans` this signer can sign for (closed rooms included), for
    /// checking records.
    func roomKeys(_ plans: [String: RoomPlan]) -> RoomKeys {
        var keys: [String: (ProctorKey, ProctorSigningKey)] = [:]
        for (room, plan) in plans {
            var open = plan
            open.closedAt = nil
            guard let text = plan.proctorKey, let key = try? ProctorKey(parsing: text),
                  let (signing, _) = try? self.key(room: room, plan: open) else { continue }
            keys[room] = (key, signing)
        }
        let known = keys
        return { known[$0] }
    }
}
