import Localization
#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SharedStore
import TerminalUI

enum Launcher {
    /// With a policy of `shared: required`, the store must answer before the session begins.
    /// The publisher's loop makes the connection (it is started here when it waits); this
    /// waits for its first answer.
    static func requireStore(_ publisher: SeatPublisher?, policy: RestrictionPolicy) throws(CarrelFailure) {
        guard let publisher, policy.sharedStore == .required else { return }
        publisher.start()
        if let why = publisher.firstAnswer() {
            throw CarrelFailure(status: .refused, message: "this assessment requires the lab's shared store, which cannot be reached (\(why)); check the network and PostgreSQL, then launch again")
        }
    }

    /// Fails fast, before the screen changes, for what would refuse the session anyway.
    static func requireTerminal() throws(CarrelFailure) {
        guard isatty(0) == 1, isatty(1) == 1 else {
            throw CarrelFailure(status: .refused, message: "`carrel take` needs a terminal on standard input and output")
        }
    }

    static func precheck(assessment: Assessment, context: SessionContext) throws(CarrelFailure) {
        try requireTerminal()
        let refusals = context.gate.refusals(policy: assessment.policy, needsTerminal: true)
        if !refusals.isEmpty { throw SessionError.refused(refusals).failure }
        if case let .held(holder) = context.lock.inspect() {
            throw SessionError.lockHeld(holder).failure
        }
        let journal: Journal?
        do {
            journal = try context.storage.openJournal(create: false).map { try Journal(writer: $0) }
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "cannot open the journal \(context.location.journalPath): \(error); choose another state directory with --state-dir")
        }
        guard let journal else { return }
        do throws(SessionError) {
            let waiting = try SessionRuntime.waiting(journal: journal, context: context)
            if !waiting.isEmpty { throw SessionError.interruptedSessions(waiting) }
        } catch {
            throw error.failure
        }
    }
}
