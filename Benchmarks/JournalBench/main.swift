// Durable answers per second, answer → commit latency and the bytes a Tab writes, measured on
// the real runtime and a real journal file (WAL, synchronous=FULL). Run with
// `scripts/bench-journal` (release build); it is not part of the test suite.
#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import Lockdown
import SessionKit

func fail(_ why: String) -> Never {
    FileHandle.standardError.write(Data("carrel-journal-bench: \(why)\n".utf8))
    exit(1)
}

struct NoPasteboards: PasteboardClearer {
    func clearAndDescribe() -> [String] { [] }
}

struct OpenGate: EnvironmentGate {
    func refusals(policy: RestrictionPolicy, needsTerminal: Bool) -> [String] { [] }
    func attachedTracer() -> Int? { nil }
}

func assessment(items: Int) -> (Assessment, StoredAssessment)? {
    var lines = ["carrel: 1", "id: bench", "title: Bench", "sections:", "  - items:"]
    for i in 0..<items {
        lines.append("      - {id: q\(i), type: text, prompt: \"Question \(i): a prompt of a usual length, with a few words\", accept: [x]}")
    }
    let text = lines.joined(separator: "\n")
    guard let a = AssessmentReader.read(text: text, file: "bench.yaml").assessment else { return nil }
    return (a, StoredAssessment(bytes: Data(text.utf8), path: "bench.yaml"))
}

func context(_ dir: String) -> SessionContext {
    var c = SessionContext.system(location: StateLocation(stateDirectory: dir), environment: [:], needsTerminal: false)
    c.signals = { nil }
    c.pasteboards = NoPasteboards()
    c.gate = OpenGate()
    return c
}

func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

let base = FileManager.default.temporaryDirectory.path + "/carrel-bench-\(getpid())"
defer { try? FileManager.default.removeItem(atPath: base) }
let answers = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 3000
let clock = SessionClock.system.monotonic

// 1. Answers, closed loop: each one committed (one transaction) before the next is sent.
guard let (small, smallSource) = assessment(items: 16) else { fail("the benchmark assessment does not validate") }
let runtime = try SessionRuntime.begin(assessment: small, source: smallSource, candidate: "Bench", extraTime: .none,
                                       context: context(base + "/answers"))
var latencies: [Double] = []
let start = clock()
for n in 0..<answers {
    let t0 = clock()
    let reaction = runtime.send(.answer("q\(n % 16)", .text("answer \(n)")))
    latencies.append(clock() - t0)
    guard reaction.saved.count == 1 else { fail("answer \(n) was not committed") }
}
let seconds = clock() - start
latencies.sort()
print(String(format: "durable answers/s (closed loop, one transaction each): %.0f over %d answers", Double(answers) / seconds, answers))
print(String(format: "answer → commit latency: p50 %.3f ms, p99 %.3f ms, max %.3f ms",
             percentile(latencies, 0.5) * 1000, percentile(latencies, 0.99) * 1000, (latencies.last ?? 0) * 1000))
_ = runtime.send(.hangUp("benchmark over"))

// 2. The bytes a Tab appends to the journal's log, at 16 and 15 000 items.
for items in [16, 15_000] {
    guard let (a, source) = assessment(items: items) else { fail("the benchmark assessment does not validate") }
    let dir = base + "/tab-\(items)"
    let r = try SessionRuntime.begin(assessment: a, source: source, candidate: nil, extraTime: .none, context: context(dir))
    _ = r.send(.next)
    var written: [Int] = []
    for _ in 0..<20 {
        try r.journal.writer.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        _ = r.send(.next)
        written.append(fileSize(dir + "/journal.sqlite-wal"))
    }
    let journalSize = fileSize(dir + "/journal.sqlite")
    print("bytes a Tab writes at \(items) items: \(written.min() ?? 0)–\(written.max() ?? 0) (journal \(journalSize / 1024) KiB)")
    _ = r.send(.hangUp("benchmark over"))
}
