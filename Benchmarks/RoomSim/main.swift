// Light seats for the room benchmark (scripts/bench-room --light N): N real session runtimes,
// each with its own journal, lock and publisher, in one process and with no terminal. A lab of
// a thousand terminals cannot run on one machine; a thousand of these load PostgreSQL as a
// thousand seats do (one connection each, their records, their pulses, the proctor's commands)
// while the process stays small. Not part of the test suite.
//
//   carrel-room-sim --url URL --room ROOM --seats N --state DIR --file FILE [--answer-every S] [--duration S] [--threads N] [--reads N]
//
// Prints `ready N` once every seat has begun, then `command ID SEAT EPOCH` each time a seat
// applies a proctor's command (EPOCH: wall-clock seconds), then `done` after --duration.
#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import BenchSupport
import Foundation
import Lockdown
import SessionKit
import SharedStore
import Synchronization

/// One line to standard output, unbuffered (the harness reads the times as they come).
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ why: String) -> Never { BenchSupport.fail("carrel-room-sim", why) }

var options: [String: String] = [:]
var words = Array(CommandLine.arguments.dropFirst())
while words.count >= 2, words[0].hasPrefix("--") {
    options[String(words[0].dropFirst(2))] = words[1]
    words.removeFirst(2)
}
guard words.isEmpty, let urlText = options["url"], let room = options["room"], let state = options["state"],
      let seats = options["seats"].flatMap({ Int($0) }), seats > 0 else {
    fail("usage: carrel-room-sim --url URL --room ROOM --seats N --state DIR --file FILE [--answer-every S] [--duration S] [--threads N] [--reads N]")
}
let answerEvery = options["answer-every"].flatMap { Double($0) } ?? 5
let duration = options["duration"].flatMap { Double($0) } ?? 60

// A thousand journals (three files each) and a thousand connections.
var limit = rlimit()
getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
limit.rlim_cur = limit.rlim_max
setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
signal(SIGPIPE, SIG_IGN)

let url: SharedURL
do { url = try SharedURL.parse(urlText) } catch { fail("\(error)") }
guard let file = options["file"], let data = FileManager.default.contents(atPath: file),
      let assessment = AssessmentReader.read(bytes: [UInt8](data), file: file).assessment else {
    fail("--file names a valid assessment (the room's)")
}
let source = StoredAssessment(bytes: data, path: file, format: .yaml)
let items = assessment.sections.flatMap(\.items).filter { $0.type == .text }.map(\.id)
guard !items.isEmpty else { fail("the assessment needs a text question to answer") }

let lastCommand: Int64
do {
    lastCommand = try await SeatRoom.plan(url, room: room, seat: "L0000")?.lastCommand ?? 0
} catch {
    fail("cannot read the plan of room \(room): \(SeatPublisher.describe(error))")
}

/// The answers given by all workers.
let total = Mutex(0)

final class Seat {
    let name: String
    let runtime: SessionRuntime
    var nextAnswer = 0.0
    var answers = 0
    init(name: String, runtime: SessionRuntime) {
        self.name = name
        self.runtime = runtime
    }
}

/// One worker thread's seats: begun, pumped and answered on that thread only (a runtime is
/// used by one thread, as at a real seat). Several workers commit to their journals at once,
/// as separate seats do; one thread for all would make every seat wait for the others' disk.
@Sendable func work(_ worker: Int, of workers: Int, ready: DispatchSemaphore, go: DispatchSemaphore, done: DispatchSemaphore) {
    let clock = SessionClock.system.monotonic
    var mine: [Seat] = []
    for i in stride(from: worker, to: seats, by: workers) {
        let name = String(format: "L%04d", i)
        let publisher = SeatPublisher(url: url)
        publisher.follow(room: room, seat: name, after: lastCommand)
        var context = SessionContext.bench("\(state)/\(name)")
        context.publisher = publisher
        let runtime: SessionRuntime
        do {
            runtime = try SessionRuntime.begin(
                assessment: assessment, source: source, candidate: "Light seat \(i)", extraTime: .none,
                options: SessionOptions(shared: SharedLabel(room: room, seat: name, total: assessment.itemCount)),
                context: context, start: RoomStart(seen: lastCommand))
        } catch {
            fail("seat \(name) could not begin: \(error)")
        }
        publisher.start(journal: runtime.journal)
        Task.detached { await publisher.run() }
        mine.append(Seat(name: name, runtime: runtime))
    }
    ready.signal()
    go.wait()
    let start = clock()
    // Each seat answers every --answer-every seconds, the room's seats spread over that interval.
    for seat in mine {
        let index = Int(seat.name.dropFirst()) ?? 0
        seat.nextAnswer = start + answerEvery * Double(index) / Double(seats)
    }
    // Every 50 ms each seat's runtime runs its pump (commands, time), as a seat's loop does.
    while clock() - start < duration {
        for seat in mine {
            let before = seat.runtime.state.room.lastCommand
            _ = seat.runtime.pump()
            let after = seat.runtime.state.room.lastCommand
            if after != before {
                say(String(format: "command %lld %@ %.6f", after, seat.name, Date().timeIntervalSince1970))
            }
            if clock() >= seat.nextAnswer {
                seat.answers += 1
                let item = items[seat.answers % items.count]
                _ = seat.runtime.send(.answer(item, .text("answer \(seat.answers) of \(seat.name)")))
                seat.nextAnswer += answerEvery
            }
        }
        usleep(50_000)
    }
    let answered = mine.reduce(0) { $0 + $1.answers }
    total.withLock { $0 += answered }
    done.signal()
}

let workers = min(seats, options["threads"].flatMap { Int($0) } ?? 16)
let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
let began = SessionClock.system.monotonic()
for w in 0..<workers {
    let thread = Thread { work(w, of: workers, ready: ready, go: go, done: done) }
    thread.start()
}
for _ in 0..<workers { ready.wait() }
say(String(format: "ready %d %.1f", seats, SessionClock.system.monotonic() - began))
for _ in 0..<workers { go.signal() }
// With --reads N: the proctor's console's read of the room (`SharedReader.seats`), timed N
// times, one a second, while the seats run (`read MILLISECONDS SEATS`).
if let reads = options["reads"].flatMap({ Int($0) }), reads > 0 {
    do {
        let reader = try await SharedReader.open(url)
        for _ in 0..<reads {
            try await Task.sleep(nanoseconds: 1_000_000_000)
            let t0 = SessionClock.system.monotonic()
            let seen = try await reader.seats(room: room)
            say(String(format: "read %.1f %d", (SessionClock.system.monotonic() - t0) * 1000, seen.count))
        }
        await reader.close()
    } catch {
        say("read failed \(SeatPublisher.describe(error))")
    }
}
for _ in 0..<workers { done.wait() }
say("done \(total.withLock { $0 })")
