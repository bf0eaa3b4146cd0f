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
}
