import AssessmentKit
import SessionKit

extension TakeApp {
    /// Tells the launch `message` and carries out what it asks, each answer told in turn.
    func send(_ message: LaunchMessage) {
        var pending = [message]
        while !pending.isEmpty {
            let next = pending.removeFirst()
            var state = launch
            let effects = state.update(next)
            launch = state
            for effect in effects {
                if let answer = carryOut(effect) { pending.append(answer) }
            }
        }
    }

    /// One effect of the launch; an effect that is answered returns its answer.
    func carryOut(_ effect: LaunchEffect) -> LaunchMessage? {
        switch effect {
        case .prepare:
            return .prepared(environment?.prepare())
        case let .checkPassphrase(typed):
            guard let hash = model.assessment.proctor.passphrase else { return nil }
            // The attempts kept in the state directory give the verdict; without them, the
            // hash is checked here by the same rule.
            let verdict = environment?.checkPassphrase(typed) ?? launch.gate.verdict(correct: hash.verify(typed))
            return .checked(verdict, typed: typed, now: monotonic())
        case let .openWithPassphrase(typed):
            return opened { () throws(SessionError) in try environment?.open(passphrase: typed, model: model) }
        case let .openWithStart(start):
            return opened { () throws(SessionError) in try environment?.open(start: start, model: model) }
        case .acceptPassphrase:
            model.launchAccepted()
        case let .tellWrongPassphrase(attempt, triesLeft, wait):
            let say = model.say
            let tries = say("{0, plural, one {That passphrase is not right (attempt {1}, # try left).} other {That passphrase is not right (attempt {1}, # tries left).}}",
                            .n(triesLeft), .n(attempt))
            model.startMessage = wait >= 1
                ? tries + " " + say("{0, plural, one {Wait # second before trying again.} other {Wait # seconds before trying again.}}", .n(Int(wait.rounded(.up))))
                : tries
        case let .tellWait(seconds):
            model.startMessage = model.say("{0, plural, one {Wait # second before trying the passphrase again.} other {Wait # seconds before trying the passphrase again.}}",
                                           .n(Int(seconds.rounded(.up))))
        case .begin:
            do {
                guard let started = try environment?.begin(self) else { return .began(.notYet) }
                runtime = started
                if let first = started.firstReaction() { react(first) }
                return .began(.running)
            } catch {
                return .began(.failed(Exit(error.exitCode, error.description)))
            }
        case let .logPassphraseFailures(count):
            guard let runtime else { return nil }
            for attempt in 0..<count { react(runtime.log(.passphraseFailed, "launch, attempt \(attempt + 1)")) }
        case .showSession:
            syncState()
        case .showLockedBanner:
            syncState()
            model.phase = .lockedBanner
        case let .exit(exit):
            finalExit = exit
            quit = true
        }
        return nil
    }

    /// Opens a sealed package: the real test's model replaces the start screen's.
    private func opened(_ open: () throws(SessionError) -> TakeModel?) -> LaunchMessage {
        do throws(SessionError) {
            if let real = try open() { model = real }
            return .opened(nil)
        } catch {
            return .opened(Exit(error.exitCode, error.description))
        }
    }
}
