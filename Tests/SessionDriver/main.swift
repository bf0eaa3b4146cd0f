// A headless front end for the session runtime, used only by the test suite: it drives
// the real runtime, journal, lock, pasteboards and signal guard from lines on stdin, and
// prints `ack ITEM` only after an answer is committed. It is not part of the product.
#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import GRDB
import Lockdown
import SessionKit
import SharedStore

func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(1, $0, strlen($0)) }
}

func fail(_ code: Int32, _ message: String) -> Never {
    let text = "carrel: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(code)
}

// Started by an enrolled machine's helper: as carrel does first thing, non-dumpable, then the
// helper's launch is answered (before any thread is made).
if getenv("CARREL_KEYSIGN_FD") != nil { ProcessHardening.makeNonDumpable() }
MachineSigning.answerLaunch()

var args = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    let value = args[i + 1]
    args.removeSubrange(i...(i + 1))
    return value
}

// Failures injected at a begin step, through the edges (never through product code).
struct RefusingGate: EnvironmentGate {
    func refusals(policy: RestrictionPolicy, needsTerminal: Bool) -> [String] { ["refused for the test"] }
    func attachedTracer() -> Int? { nil }
}

struct BrokenLock: SessionLocking {
    let real: any SessionLocking
    func acquire(_ holder: LockHolder) throws(LockError) -> any HeldSessionLock { throw .unusable("lock broken for the test") }
    func inspect() -> LockState { real.inspect() }
}

struct BrokenSignals: Error, CustomStringConvertible {
    var description: String { "signals broken for the test" }
}

/// A journal that refuses to record a running session (SQLite itself refuses).
struct RefusingSessions: StateStorage {
    let real: SecureStateStorage
    var location: StateLocation { real.location }
    func openJournal(create: Bool) throws -> (any DatabaseWriter)? {
        guard let writer = try real.openJournal(create: create) else { return nil }
        try writer.write { db in
            try db.execute(sql: "CREATE TEMP TRIGGER refuse BEFORE INSERT ON session WHEN NEW.status = 'active' BEGIN SELECT RAISE(ABORT, 'refused for the test'); END")
        }
        return writer
    }
    func writeResult(_ data: Data, session: String) throws -> String { try real.writeResult(data, session: session) }
}

LoadedCode.recordAtStart()
ProcessHardening.makeNonDumpable()
SignalGuard.unblockRelied()
let environment = ProcessInfo.processInfo.environment
let stateDir = option("--state-dir")
let candidate = option("--candidate")
let failAt = option("--fail-at")
/// Opens a sealed package given to `begin`.
let passphrase = option("--passphrase")
let extra = option("--extra-time").flatMap(ExtraTime.init(parsing:)) ?? ExtraTime.none
/// A lab's shared store: the seat publishes as `carrel take --shared` does.
let sharedURL = option("--shared")
let room = option("--room") ?? "default"
let seat = option("--seat") ?? "driver"
/// A seat of a room with a plan: it reads the proctor's commands (`--follow`), and with
/// `--wait-start` waits for the proctor's start before it begins, as `carrel take` does.
let follow = args.contains("--follow")
let waitStart = args.contains("--wait-start")
/// With `--wait-start`: the announcement signed by the machine's helper (enrolled machines).
let machineSeal = args.contains("--machine-seal")
args.removeAll { $0 == "--follow" || $0 == "--wait-start" || $0 == "--machine-seal" }
if machineSeal {
    // As `carrel take … --room` does: on an enrolled machine, run again as its helper's child.
    let folder = getenv("CARREL_MACHINE_DIR").map { String(cString: $0) } ?? "/etc/carrel"
    MachineSigning.relaunch(Array(CommandLine.arguments.dropFirst()), machineFolder: folder)
    // Started by the helper: it ends with it, as carrel does (a test that kills the helper
    // leaves no seat behind holding its output open).
    if MachineSigning.startedByHelper { ProcessHardening.dieWithParent() }
}
guard let mode = args.first else { fail(64, "usage: begin FILE | resume [SESSION] | unlock [SESSION]") }

// The pasteboard backends and the helper runner, run in a process of their own: there, a
// helper's deadline is measured as carrel measures it, not on a test process whose shared
// pool other tests keep busy.
if mode == "pasteboard" {
    let backend: (any PasteboardBackend)?
    switch args.dropFirst().first {
    // Where the test puts the machine's X sockets and screen's exchange file (its own
    // folders: the real ones may hold other tests' displays and files).
    case "x11"?:
        var x11 = X11Pasteboard(environment: environment)
        if let sockets = environment["DRIVER_X11_SOCKETS"] { x11.socketDirectory = sockets }
        backend = x11
    case "wayland"?: backend = WaylandPasteboard(environment: environment)
    case "screen"?:
        var screen = ScreenPasteboard(environment: environment)
        if let exchange = environment["DRIVER_SCREEN_EXCHANGE"] { screen.exchangeFile = exchange }
        backend = screen
    case "tmux"?: backend = TmuxPasteboard(environment: environment)
    default: backend = nil
    }
    guard let backend else { fail(64, "usage: pasteboard x11|wayland|screen|tmux") }
    say("\(backend.clear())")
    exit(0)
}
if mode == "run-helper", args.count >= 3, let timeout = Double(args[2]) {
    let started = Date()
    let r = ProcessRunner.run(args[1], Array(args.dropFirst(3)), environment: environment, timeout: timeout)
    say("timedOut=\(r.timedOut) status=\(r.status) seconds=\(Int(Date().timeIntervalSince(started).rounded(.up)))")
    exit(0)
}

let location = StateLocation.resolve(explicit: stateDir, environment: environment)
var context = SessionContext.system(location: location, environment: environment, needsTerminal: false)
var enterUI: () throws -> Void = {}
switch failAt {
case "preflight"?: context.gate = RefusingGate()
case "acquire_lock"?: context.lock = BrokenLock(real: context.lock)
case "guard_signals"?: context.signals = { throw BrokenSignals() }
case "open_journal"?: context.storage = RefusingSessions(real: SecureStateStorage(location: location))
case "enter_ui"?: enterUI = { throw BrokenSignals() }
case nil: break
case let other?: fail(64, "unknown step \(other)")
}
var publisher: SeatPublisher?
if let sharedURL {
    do {
        publisher = SeatPublisher(url: try SharedURL.parse(sharedURL))
    } catch {
        fail(64, "\(error)")
    }
    signal(SIGPIPE, SIG_IGN)
    context.signals = { try SignalGuard(brokenPipesIgnored: true) }
    context.publisher = publisher
}

/// The publisher's loop runs before the session begins when the seat waits for its start.
var earlyRunner: Task<Void, Never>?
if let publisher, follow { earlyRunner = Task { await publisher.run() } }

/// What the proctor's start gave this session (its key, a sealed test's package key).
nonisolated(unsafe) var startSecrets: SeatSecrets?
/// The token the seat announced itself with, kept by the session it begins (as `carrel take`
/// keeps its room's): a seat revived after its session moved asks the store with it.
nonisolated(unsafe) var joinToken: String?

/// The plan's last command, and (waiting for the proctor) the start that began the session.
@MainActor func joinRoom(_ assessment: Assessment, fingerprint: String) async -> RoomStart? {
    guard follow, let publisher else { return nil }
    let floor = SignedCommand.floor(joined: Date())
    let plan = try? await SeatRoom.plan(publisher.url, room: room, seat: seat)
    publisher.follow(room: room, seat: seat, after: plan?.lastCommand ?? 0)
    guard waitStart else {
        publisher.start()
        return RoomStart(seen: plan?.lastCommand ?? 0)
    }
    // As `carrel take` does while it waits: the journal is made ready (created, migrated) now,
    // so the proctor's start does not wait for it; a failure is met again at begin.
    if let writer = try? context.storage.openJournal(create: true) { _ = try? Journal(writer: writer) }
    // As `carrel take` does before its start screen: the probes run once now (they run again
    // at begin, where what cannot change since is not asked again).
    _ = context.gate.refusals(policy: assessment.policy, needsTerminal: false)
    var label = SharedLabel(room: room, seat: seat)
    label.attestation = ["carrel_version": "driver"]
    SessionRuntime.rehearseBegin(assessment: assessment, candidate: candidate, extraTime: extra,
                                 options: SessionOptions(shared: label))
    let id = SessionIDs.random.sessionID()
    context.ids = SessionIDs(sessionID: { id }, seed: SessionIDs.random.seed)
    let box = SeatBox()
    var announced = SharedLabel(room: room, seat: seat, total: assessment.itemCount)
    let token = SessionMAC.randomToken()
    announced.storeToken = token
    joinToken = token
    if machineSeal {
        // As `carrel take` does on an enrolled machine: the helper next to this program signs.
        announced.attestation = MachineSigning.sealed([:], session: id, room: room, seat: seat, boxKey: box.publicKey,
                                                      version: "driver") { say("unsigned \($0)") }
    }
    publisher.announce(.init(session: id, label: announced,
                             candidate: candidate, assessmentID: assessment.id, assessmentTitle: assessment.title,
                             boxKey: box.publicKey))
    publisher.start()
    say("waiting \(id)")
    let check = { SignedCommand.Check(key: assessment.proctor.key, room: room, seat: seat, fingerprint: fingerprint,
                                      now: Date(), lastSequence: floor, session: id) }
    while true {
        if let (start, secrets) = publisher.verifiedStart(check(), box: box) {
            if let secrets { publisher.authenticate(session: id, key: secrets.sessionKey) }
            startSecrets = secrets
            say("keys \(secrets == nil ? "none" : secrets?.packageKey == nil ? "session" : "session+package")")
            return RoomStart(command: start)
        }
        await publisher.startBell.wait(seconds: 1)
    }
}

let runtime: SessionRuntime
do throws(SessionError) {
    switch mode {
    case "begin":
        guard args.count > 1, let data = FileManager.default.contents(atPath: args[1]) else { fail(66, "cannot open the file") }
        let format: StoredAssessment.Format = SealedAssessment.isSealed(data) ? .sealed : .yaml
        let source = StoredAssessment(bytes: data, path: args[1], format: format)
        var assessment: Assessment
        // A sealed test in a room the proctor starts, with no passphrase given: the start
        // opens it (the package key comes wrapped to this seat).
        let startOpens = format == .sealed && passphrase == nil && waitStart
        if startOpens {
            do throws(SealedAssessment.Failure) {
                assessment = try SealedAssessment.header(of: [UInt8](data)).metadata.preview
            } catch {
                throw SessionError.sealed(file: args[1], error)
            }
        } else if format == .sealed {
            assessment = try SessionRuntime.open(source, passphrase: passphrase)
        } else {
            guard let read = AssessmentReader.read(bytes: [UInt8](data), file: args[1]).assessment else { fail(65, "invalid assessment") }
            assessment = read
        }
        let fingerprint = format == .sealed
            ? ((try? SealedAssessment.header(of: [UInt8](data)).metadata.fingerprint) ?? "")
            : Fingerprint.of(assessment)
        let start = await joinRoom(assessment, fingerprint: fingerprint)
        if startOpens {
            guard let packageKey = startSecrets?.packageKey else { fail(69, "the proctor's start did not carry the package key") }
            do throws(SealedAssessment.Failure) {
                assessment = try SealedAssessment.open([UInt8](data), packageKey: packageKey, file: args[1])
            } catch {
                throw SessionError.sealed(file: args[1], error)
            }
        }
        var label = SharedLabel(room: room, seat: seat)
        label.storeToken = joinToken
        if follow { label.attestation = ["carrel_version": "driver"] }
        runtime = try SessionRuntime.begin(
            assessment: assessment, source: source,
            candidate: candidate, extraTime: extra,
            options: SessionOptions(shared: publisher == nil ? nil : label),
            context: context, start: start, enterUI: enterUI)
    case "resume":
        runtime = try SessionRuntime.resume(sessionID: args.count > 1 ? args[1] : nil, context: context)
    case "unlock":
        let endings = try SessionRuntime.unlock(sessionID: args.count > 1 ? args[1] : nil, context: context)
        for e in endings { say("unlocked \(e.result?.session ?? "-") \(e.resultPath ?? "-") \(e.problem ?? "")") }
        exit(0)
    default:
        fail(64, "unknown mode \(mode)")
    }
} catch {
    fail(error.exitCode, error.description)
}

if runtime.record.options.shared != nil { publisher?.start(journal: runtime.journal) }
say("began \(runtime.record.id) \(runtime.state.plan.itemOrder.joined(separator: ","))")

/// The exit code once the session is over: the loop ends, and the driver leaves as `carrel
/// take` does (the last records get up to 3 s to reach the store).
var leaving: Int32?

@MainActor func leave(_ code: Int32) {
    if leaving == nil { leaving = code }
}

@MainActor func report(_ r: Reaction) {
    for item in r.saved { say("ack \(item)") }
    for item in r.failed { say("unsaved \(item)") }
    for n in r.notices { say("notice \(n)") }
    switch r.outcome {
    case let .finished(result, path, problem)?:
        say("finished \(result.status.rawValue) \(path ?? "-") \(problem ?? "")")
        leave(problem == nil ? 0 : 73)
    case let .interrupted(reason, unsaved)?:
        say("interrupted \(reason) unsaved=\(unsaved.joined(separator: ","))")
        leave(75)
    case let .saveFailed(reason, unsaved)?:
        say("save-failed \(reason) unsaved=\(unsaved.joined(separator: ","))")
        leave(73)
    case nil:
        break
    }
}

@MainActor func command(_ line: String) {
    let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
    guard let verb = parts.first else { return }
    let arg1 = parts.count > 1 ? parts[1] : ""
    let rest = parts.count > 2 ? parts[2] : ""
    // A malformed answer line is a bug in the test, said out loud.
    func response() -> Response? {
        do {
            return try JSONDecoder().decode(Response.self, from: Data(rest.utf8))
        } catch {
            say("notice bad response \(rest)")
            return nil
        }
    }
    switch verb {
    case "answer": report(runtime.send(.answer(arg1, response())))
    case "edit": report(runtime.send(.edit(arg1, response())))
    case "flag": report(runtime.send(.toggleFlag(arg1)))
    case "next": report(runtime.send(.next))
    case "prev": report(runtime.send(.previous))
    case "jump": report(runtime.send(.jump(Int(arg1) ?? -1)))
    case "submit":
        report(runtime.send(.submitRequested))
        report(runtime.send(.submitConfirmed))
    case "paste": report(runtime.send(.pasteAttempt(characters: Int(arg1) ?? 0)))
    case "exit": report(runtime.send(.exitAttempt(arg1)))
    case "passphrase": report(runtime.enterPassphrase(parts.dropFirst().joined(separator: " ")))
    case "confirm-end": report(runtime.send(.endConfirmed))
    case "dump":
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let answers = (try? encoder.encode(runtime.state.responses)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        say("dump flags=\(runtime.state.flags.sorted().joined(separator: ",")) position=\(runtime.state.position) answers=\(answers)")
    case "held":
        // The test as this seat's process holds it, for tests that look for an answer key in it.
        let held = (try? JSONEncoder().encode(runtime.assessment)) ?? Data()
        say("held \(held.base64EncodedString())")
    case "store":
        say("store \(publisher?.storeState.words ?? "none")")
    case "state":
        // `elapsed=` stays last: tests read the number after it.
        say("state position=\(runtime.state.position) status=\(runtime.state.status.rawValue) unsaved=\(runtime.state.unsavedIDs.joined(separator: ",")) seconds=\(runtime.elapsedNow()) left=\(runtime.state.remaining.map { String($0) } ?? "-") paused=\(runtime.state.room.paused) elapsed=\(Int(runtime.elapsedNow()))")
    default: say("notice unknown command \(verb)")
    }
    say("ok \(verb)")
}

var buffer = [UInt8]()
/// The store's news (the proctor's commands read) wakes the loop through a pipe, as the
/// loop bell wakes `carrel take`'s: the loop does not look for it on a timer.
var newsPipe: [Int32] = [-1, -1]
if pipe(&newsPipe) == 0 {
    for fd in newsPipe { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    let ringEnd = newsPipe[1]
    publisher?.onNews {
        var byte: UInt8 = 1
        _ = write(ringEnd, &byte, 1)
    }
}
var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
           pollfd(fd: runtime.signalDescriptor, events: Int16(POLLIN), revents: 0),
           pollfd(fd: newsPipe[0], events: Int16(POLLIN), revents: 0)]

/// As long as `carrel take` waits when nothing arrives: until the time used next crosses a
/// whole second (the clock's next change), a second at most; without a news pipe, a tenth.
@MainActor func nextWait() -> Int32 {
    if newsPipe[0] < 0 { return 100 }
    let used = runtime.elapsedNow()
    return Int32(max(10, min(1000, ((used.rounded(.down) + 1 - used) * 1000).rounded(.up))))
}

/// Reads commands until the session is over; the exit code.
@MainActor func mainLoop() -> Int32 {
// The first turn does not wait: as `carrel take` pumps right after its begin, the session's
// clock and its publisher hear of the session at once.
var wait: Int32 = 0
while leaving == nil {
    _ = poll(&fds, nfds_t(fds.count), wait)
    wait = nextWait()
    if fds[2].revents != 0 {
        var drained = [UInt8](repeating: 0, count: 64)
        while read(newsPipe[0], &drained, drained.count) > 0 {}
    }
    let before = runtime.state.room.lastCommand
    report(runtime.pump())
    // Each command applied, as the seat's journal has it (one line per command, in order).
    if runtime.state.room.lastCommand != before {
        let events = (try? runtime.journal.events(session: runtime.record.id)) ?? []
        for event in events where event.kind == EventKind.proctorCommand.rawValue {
            if let command = ProctorCommand(journalDetail: event.detail), command.id > before {
                say("command \(command.id) left=\(runtime.state.remaining.map { String($0) } ?? "-")")
            }
        }
        // Each command refused, with why (`#ID refused: REASON`).
        for event in events where event.kind == EventKind.commandRefused.rawValue {
            let id = event.detail.dropFirst().prefix { $0 != " " }
            if let number = Int64(id), number > before { say("refused \(number) \(event.detail)") }
        }
    }
    if fds[0].revents != 0 {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = read(0, &chunk, chunk.count)
        if n <= 0 {
            // Input gone for good: like a lost terminal, never a busy loop.
            report(runtime.send(.hangUp("input closed")))
            fds[0].fd = -1
        } else {
            buffer += chunk[0..<n]
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                command(line)
                if leaving != nil { break }
            }
        }
    }
}
return leaving ?? 0
}

// The publisher's loop is a child task beside the session, as in `carrel take`.
let code = await withTaskGroup(of: Void.self) { group in
    if let publisher, earlyRunner == nil { group.addTask { await publisher.run() } }
    let code = mainLoop()
    if let publisher, !(await publisher.finish(within: 3)) { say("notice records left waiting for the shared store") }
    group.cancelAll()
    earlyRunner?.cancel()
    await earlyRunner?.value
    return code
}
exit(code)
