import AssessmentMode
import Foundation

/// Who asks: a connection the service has checked (the trusted Carrel, a student account).
public struct Caller: Sendable, Equatable {
    public var connection: Int
    public var uid: UInt32
    public var account: String

    public init(connection: Int, uid: UInt32, account: String) {
        self.connection = connection
        self.uid = uid
        self.account = account
    }
}

/// A reply and the connection it goes to.
public struct Outgoing: Sendable, Equatable {
    public var connection: Int
    public var reply: ModeReply

    public init(_ connection: Int, _ reply: ModeReply) {
        self.connection = connection
        self.reply = reply
    }
}

/// What the watcher found and did once the changes were made: the sessions step, the
/// processes it stopped, the incidents it saw.
public struct AtBegin: Sendable, Equatable {
    public var steps: [StepReport]
    public var stopped: [ProcessMark]
    public var incidents: [Incident]
    /// How soon another program is seen, in words ("at its start …").
    public var watching: String
    /// Why the machine as found refuses the mode (nothing was stopped or ended then).
    public var refusal: String?

    public init(steps: [StepReport] = [], stopped: [ProcessMark] = [], incidents: [Incident] = [], watching: String = "",
                refusal: String? = nil) {
        self.steps = steps
        self.stopped = stopped
        self.incidents = incidents
        self.watching = watching
        self.refusal = refusal
    }
}

/// Assessment mode's lifecycle on one machine: begin (every change written down before it is
/// made), end, interruption, resume and unlock with the proctor's passphrase, the time limit,
/// and the restore at start. One mode at a time. The OS is behind `ChangeExecutor` and
/// `ModeStore`; time is given by the caller.
public final class ModeEngine {
    public internal(set) var record: ModeRecord?
    /// The connection that owns the mode; nil while it is interrupted.
    public internal(set) var owner: Int?
    let executor: any ChangeExecutor
    let store: any ModeStore
    let log: (String) -> Void

    /// No mode outlives a day, whatever a session asks.
    public static let longest = 86_400
    public static let wrongPassphrase = "wrong passphrase"

    public init(executor: any ChangeExecutor, store: any ModeStore, log: @escaping (String) -> Void) {
        self.executor = executor
        self.store = store
        self.log = log
    }

    /// Why `request` is not begun, before anything is resolved or changed; nil when it may be.
    public func refusal(_ request: ModeBegin) -> String? {
        if let record {
            let since = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: record.began))
            return "\(ModeWire.heldByAnother) \(record.begin.session) (uid \(record.uid), since \(since))"
        }
        let session = request.session
        guard !session.isEmpty, session.count <= 200, !session.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return "the session's name is empty, longer than 200 characters or holds control characters" }
        guard request.maxDuration > 0 else { return "max_duration must be at least one second" }
        guard request.store.count <= 16 else { return "at most 16 store endpoints may be named" }
        for endpoint in request.store where !Self.isHost(endpoint.host) || !(1...65535).contains(endpoint.port) {
            return "the store endpoint \(Sanitise.text(endpoint.description, limit: 80)) is not a host name or address and a port"
        }
        if let hash = request.passphraseHash {
            do { _ = try PassphraseCheck(parsing: hash) } catch { return error.reason }
        }
        return nil
    }

    /// A plain address, or a DNS name of letters, digits, dots and hyphens.
    public static func isHost(_ host: String) -> Bool {
        if ModePlan.isAddress(host) { return true }
        return !host.isEmpty && host.utf8.count <= 253 && !host.hasPrefix("-") && !host.hasPrefix(".")
            && host.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "." || $0 == "-" }
    }

    /// Plans and makes the mode's changes in order. A change that fails undoes its step; a
    /// required step's failure undoes everything, in reverse, and the begin fails with why.
    public func begin(_ request: ModeBegin, caller: Caller, resolved: ModePlan.Resolved, now: Double,
                      watch: (ModeRecord) -> AtBegin) -> [Outgoing] {
        if let why = refusal(request) { return [Outgoing(caller.connection, .failed(reason: why))] }
        let endsBy = now + Double(min(request.maxDuration, Self.longest))
        var fresh = ModeRecord(begin: request, uid: caller.uid, account: caller.account, began: now, endsBy: endsBy)
        do { try store.save(fresh) } catch {
            return [Outgoing(caller.connection, .failed(reason: "the service cannot keep its record (\(error.reason)); nothing was changed"))]
        }
        record = fresh
        for step in ModePlan.steps(request.policy, uid: caller.uid, account: caller.account, resolved: resolved) {
            let outcome = apply(step)
            if case let .cannotRecord(why) = outcome {
                return [Outgoing(caller.connection, .failed(reason: abandon("the service cannot keep its record (\(why))")))]
            }
            if case let .notApplied(why) = outcome, step.required {
                return [Outgoing(caller.connection, .failed(reason: abandon("the \(step.kind.rawValue) step cannot be applied: \(why)")))]
            }
            if case let .notApplied(why) = outcome { log("session \(request.session): \(step.kind.rawValue) not applied: \(why)") }
            record?.steps.append(StepReport(kind: step.kind, applied: outcome == .applied, detail: outcome.detail ?? step.detail))
        }
        guard let made = record else { return [] }
        fresh = made
        let watched = watch(fresh)
        if let why = watched.refusal { return [Outgoing(caller.connection, .failed(reason: abandon(why)))] }
        fresh.steps += watched.steps
        if request.policy.processRule != .ignore {
            let end = request.policy.processRule == .end
            let when = watched.watching.isEmpty ? "" : " " + watched.watching
            let held = end ? "; the shells between the login and Carrel are held (stopped) while it runs" : ""
            fresh.steps.append(StepReport(kind: .processes, applied: true,
                                          detail: "another program of \(caller.account) is \(end ? "ended" : "reported")\(when)\(held)"))
        }
        fresh.stopped = watched.stopped
        fresh.incidents = Array(watched.incidents.suffix(ModeRecord.keptIncidents))
        record = fresh
        do { try store.save(fresh) } catch {
            return [Outgoing(caller.connection, .failed(reason: abandon("the service cannot keep its record (\(error.reason))")))]
        }
        owner = caller.connection
        log("session \(request.session): assessment mode began for \(caller.account) (uid \(caller.uid))")
        return [Outgoing(caller.connection, .began(session: request.session, steps: fresh.steps))]
            + watched.incidents.map { Outgoing(caller.connection, .incident($0)) }
    }

    enum StepOutcome: Equatable {
        case applied, notApplied(String), cannotRecord(String)
        var detail: String? { if case let .notApplied(why) = self { why } else { nil } }
    }

    /// Each change of the step: what was there read, the record saved, then the change made.
    func apply(_ step: PlannedStep) -> StepOutcome {
        let start = record?.changes.count ?? 0
        for change in step.changes {
            let before: Before
            do { before = try executor.before(change) } catch {
                undo(from: start)
                return .notApplied(error.reason)
            }
            record?.changes.append(AppliedChange(change: change, step: step.kind, before: before))
            if let current = record {
                do { try store.save(current) } catch {
                    undo(from: start)
                    return .cannotRecord(error.reason)
                }
            }
            do { try executor.perform(change) } catch {
                undo(from: start)
                return .notApplied(error.reason)
            }
        }
        return .applied
    }

    /// Reverts the changes from `start` on, in reverse, and drops them from the record.
    func undo(from start: Int) {
        guard var current = record, start < current.changes.count else { return }
        for applied in current.changes[start...].reversed() { revert(applied) }
        current.changes.removeSubrange(start...)
        record = current
        do { try store.save(current) } catch {
            // The record on disk still lists the changes just reverted: reverting them again
            // at the next start puts back the same values, which is harmless.
            log("the record could not be updated after an undo: \(error.reason)")
        }
    }

    func revert(_ applied: AppliedChange) {
        do { try executor.revert(applied.change, before: applied.before) } catch {
            log("could not revert \(applied.step.rawValue) change \(applied.change): \(error.reason)")
        }
    }

    /// Everything reverted in reverse, the stopped processes continued, the record removed:
    /// the reason the begin failed, with a word that nothing was left changed.
    func abandon(_ why: String) -> String {
        revertAll()
        record = nil
        owner = nil
        return why + "; nothing was left changed"
    }

    func revertAll() {
        guard let current = record else { return }
        for applied in current.changes.reversed() { revert(applied) }
        for process in current.stopped { executor.resume(process) }
        do { try store.remove() } catch { log("the record could not be removed: \(error.reason)") }
    }

    /// The mode ends for `reason`: reverted, and the owner told (and `also`, when another
    /// connection asked).
    func finish(_ reason: EndReason, also: Int? = nil) -> [Outgoing] {
        guard let current = record else { return [] }
        let told = [owner, also].compactMap { $0 }
        revertAll()
        record = nil
        owner = nil
        log("session \(current.begin.session): assessment mode ended (\(reason.rawValue))")
        return Array(Set(told)).sorted().map { Outgoing($0, .ended(session: current.begin.session, reason: reason)) }
    }
}
