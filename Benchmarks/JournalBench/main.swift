// Durable answers per second, answer → commit latency and the bytes a Tab writes, measured on
// the real runtime and a real journal file (WAL, synchronous=FULL). Run with
// `scripts/bench-journal` (release build); it is not part of the test suite.
#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import GRDB
import Lockdown
import BenchSupport
import SessionKit

func fail(_ why: String) -> Never { BenchSupport.fail("carrel-journal-bench", why) }

func context(_ dir: String) -> SessionContext { .bench(dir) }

func assessment(items: Int) -> (Assessment, StoredAssessment)? {
    var lines = ["carrel: 1", "id: bench", "title: Bench", "sections:", "  - items:"]
    for i in 0..<items {
        lines.append("      - {id: q\(i), type: text, prompt: \"Question \(i): a prompt of a usual length, with a few words\", accept: [x]}")
    }
    let text = lines.joined(separator: "\n")
    guard let a = AssessmentReader.read(text: text, file: "bench.yaml").assessment else { return nil }
    return (a, StoredAssessment(bytes: Data(text.utf8), path: "bench.yaml"))
}

func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// Upserts per second into a bare SQLite file in WAL mode with `synchronous = FULL`, one
/// transaction each: what the disk allows a journal of one row per answer.
func floorRate(_ dir: String, _ count: Int) throws -> Double {
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    var config = Configuration()
    config.prepareDatabase { db in
        _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: "PRAGMA synchronous = FULL")
    }
    let queue = try DatabaseQueue(path: dir + "/floor.sqlite", configuration: config)
    try queue.write { try $0.execute(sql: "CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT NOT NULL)") }
    let begin = clock()
    for n in 0..<count {
        try queue.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO t VALUES (?, ?)", arguments: ["q\(n % 16)", "answer \(n)"])
        }
    }
    return Double(count) / (clock() - begin)
}

let base = FileManager.default.temporaryDirectory.path + "/carrel-bench-\(getpid())"
defer { try? FileManager.default.removeItem(atPath: base) }
let answers = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 3000
let clock = SessionClock.system.monotonic

// 1. Answers, closed loop: each one committed (one transaction) before the next is sent.
guard let (small, smallSource) = assessment(items: 16) else { fail("the benchmark assessment does not validate") }
let runtime = try SessionRuntime.begin(assessment: small, source: smallSource, candidate: "Bench", extraTime: .none,
                                       context: context(base + "/answers"))
// The floor on this disk in the same run: a bare SQLite file (WAL, synchronous=FULL, SQLite's
// own fold interval) taking one small upsert per transaction, before and after Carrel's run.
let floorBefore = try floorRate(base + "/floor-1", answers)
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
let floors = [floorBefore, try floorRate(base + "/floor-2", answers)]
print(String(format: "floor, bare SQLite WAL FULL upserts/s before and after: %.0f, %.0f (Carrel at %.0f%% of their mean)",
             floors[0], floors[1], 100 * Double(answers) / seconds / (floors.reduce(0, +) / 2)))
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
        try r.journal.checkpoint()
        _ = r.send(.next)
        written.append(fileSize(dir + "/journal.sqlite-wal"))
    }
    let journalSize = fileSize(dir + "/journal.sqlite")
    print("bytes a Tab writes at \(items) items: \(written.min() ?? 0)–\(written.max() ?? 0) (journal \(journalSize / 1024) KiB)")
    _ = r.send(.hangUp("benchmark over"))
}
