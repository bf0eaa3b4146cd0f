// A headless front end for the session controller, used only by the test suite: it drives
// the real controller, journal, lock, pasteboards and signal guard from lines on stdin, and
// prints `ack ITEM` only after an answer is committed. It is not part of the product.
#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import Lockdown
import SessionKit

func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(1, $0, strlen($0)) }
}

func fail(_ code: Int32, _ message: String) -> Never {
    let text = "carrel: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(code)
}

var args = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    let value = args[i + 1]
    args.removeSubrange(i...(i + 1))
    return value
}

SignalGuard.unblockRelied()
let environment = ProcessInfo.processInfo.environment
let stateDir = option("--state-dir")
let candidate = option("--candidate")
let failAt = option("--fail-at")
let extra = option("--extra-time").flatMap(ExtraTime.init(parsing:)) ?? ExtraTime.none
guard let mode = args.first else { fail(64, "usage: begin FILE | resume [SESSION]") }

let context = SessionContext(
    location: StateLocation.resolve(explicit: stateDir, environment: environment),
    pasteboards: Pasteboards.system(environment: environment),
    facts: EnvironmentProbe.probe(environment: environment),
    needsTerminal: false, failAt: failAt)

let controller: SessionController
do {
    switch mode {
    case "begin":
        guard args.count > 1, let data = FileManager.default.contents(atPath: args[1]) else { fail(66, "cannot open the file") }
        let outcome = AssessmentReader.read(bytes: [UInt8](data), file: args[1])
        guard let assessment = outcome.assessment else { fail(65, "invalid assessment") }
        controller = try SessionController.begin(
            assessment: assessment, source: String(decoding: data, as: UTF8.self), path: args[1],
            candidate: candidate, extraTime: extra, context: context)
    case "resume":
        controller = try SessionController.resume(sessionID: args.count > 1 ? args[1] : nil, context: context)
    default:
        fail(64, "unknown mode \(mode)")
    }
} catch {
    fail(error.exitCode, error.description)
}

say("began \(controller.record.id) \(controller.state.plan.itemOrder.joined(separator: ","))")

@MainActor func report(_ r: Reaction) {
    for item in r.saved { say("ack \(item)") }
    for n in r.notices { say("notice \(n)") }
    switch r.outcome {
    case let .finished(result, path, error)?:
        say("finished \(result.status.rawValue) \(path ?? "-") \(error ?? "")")
        exit(error == nil ? 0 : 73)
    case let .interrupted(reason)?:
        say("interrupted \(reason)")
        exit(75)
    case nil:
        break
    }
}

@MainActor func command(_ line: String) {
    let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
    guard let verb = parts.first else { return }
    let arg1 = parts.count > 1 ? parts[1] : ""
    let rest = parts.count > 2 ? parts[2] : ""
    switch verb {
    case "answer":
        let response = try? JSONDecoder().decode(Response.self, from: Data(rest.utf8))
        report(controller.handle(.answer(arg1, response)))
    case "flag": report(controller.handle(.toggleFlag(arg1)))
    case "next": report(controller.handle(.next))
    case "prev": report(controller.handle(.previous))
    case "jump": report(controller.handle(.jump(Int(arg1) ?? -1)))
    case "submit":
        report(controller.handle(.submitRequested))
        report(controller.handle(.submitConfirmed))
    case "paste": report(controller.handle(.pasteAttempt(characters: Int(arg1) ?? 0)))
    case "exit": report(controller.handle(.exitAttempt(arg1)))
    case "passphrase": report(controller.enterPassphrase(parts.dropFirst().joined(separator: " ")))
    case "confirm-end": report(controller.handle(.endConfirmed))
    case "dump":
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let answers = (try? encoder.encode(controller.state.responses)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        say("dump flags=\(controller.state.flags.sorted().joined(separator: ",")) position=\(controller.state.position) answers=\(answers)")
    case "state":
        say("state position=\(controller.state.position) status=\(controller.state.status.rawValue) elapsed=\(Int(controller.elapsedNow()))")
    default: say("notice unknown command \(verb)")
    }
    say("ok \(verb)")
}

var buffer = [UInt8]()
var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
           pollfd(fd: controller.signalGuard?.readEnd ?? -1, events: Int16(POLLIN), revents: 0)]
while true {
    _ = poll(&fds, nfds_t(fds.count), 100)
    report(controller.pollSignals())
    report(controller.tick())
    if fds[0].revents != 0 {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = read(0, &chunk, chunk.count)
        if n <= 0 {
            // Input gone for good: like a lost terminal, never a busy loop.
            report(controller.handle(.hangUp("input closed")))
            fds[0].fd = -1
        } else {
            buffer += chunk[0..<n]
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                command(line)
            }
        }
    }
}
