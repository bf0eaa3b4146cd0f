// Micro-benchmarks of the paths whose cost must not grow with a test's size: reading and
// validating, building a frame, a key through the model, committing an answer, exporting
// results. Run with `scripts/bench-suite` (release build, ordo-one/package-benchmark); not part
// of the test suite. The real binary in a pty is timed by `scripts/bench`.
#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Benchmark
import Foundation
import Lockdown
import SessionKit
import TerminalUI

/// An assessment of `count` items of every type in turn (the same shapes as
/// Benchmarks/make-assessment), 50 items a section; the first item is a short text answer.
func assessmentText(_ count: Int) -> String {
    var out = "carrel: 1\nid: bench-\(count)\ntitle: Benchmark\ntime_limit: 2h\nsections:\n"
    out.reserveCapacity(count * 180)
    for i in 0..<count {
        if i % 50 == 0 { out += "  - title: Part \(i / 50 + 1)\n    items:\n" }
        out += "      - id: q\(i)\n        prompt: Question \(i), a prompt of a usual length with a few words?\n"
        switch i % 8 {
        case 0: out += "        type: text\n        accept: [river\(i)]\n"
        case 1: out += "        type: choice\n        choices: [alpha\(i), beta\(i), gamma\(i)]\n        answer: beta\(i)\n"
        case 2: out += "        type: multiple\n        choices: [one\(i), two\(i), three\(i)]\n        answer: [one\(i), three\(i)]\n"
        case 3: out += "        type: true_false\n        answer: true\n"
        case 4: out += "        type: numeric\n        answer: \(i).5\n        tolerance: 0.5\n"
        case 5: out += "        type: essay\n        points: 3\n"
        case 6: out += "        type: order\n        items: [first\(i), second\(i), third\(i)]\n"
        default: out += "        type: match\n        pairs: {left\(i)a: right\(i)a, left\(i)b: right\(i)b}\n"
        }
    }
    return out
}

func assessment(_ count: Int) -> Assessment? {
    AssessmentReader.read(text: assessmentText(count), file: "bench.yaml").assessment
}

/// A model in the test, at question `position`, as `take` has it after the lock.
func model(_ a: Assessment, at position: Int) -> TakeModel {
    var m = TakeModel(assessment: a, candidate: "Bench", timeAllowed: 7200, theme: .mono, screenReader: false)
    let plan = SessionPlan.make(assessment: a, sessionID: "bench", seed: 1, extraTime: .none)
    m.show(SessionState(plan: plan, status: .active, position: position))
    m.phase = .test
    m.viewSize = (80, 24)
    return m
}

struct NoPasteboards: PasteboardClearer {
    func clearAndDescribe() -> [String] { [] }
}

struct OpenGate: EnvironmentGate {
    func refusals(policy: RestrictionPolicy, needsTerminal: Bool) -> [String] { [] }
    func attachedTracer() -> Int? { nil }
}

/// The real edges on a state directory of its own, without the pasteboards, signals and
/// probes (they are not what is measured).
func quietContext(_ dir: String) -> SessionContext {
    var c = SessionContext.system(location: StateLocation(stateDirectory: dir), environment: [:], needsTerminal: false)
    c.signals = { nil }
    c.pasteboards = NoPasteboards()
    c.gate = OpenGate()
    return c
}

/// `count` results of one assessment, every item answered, read from JSON as `results`
/// reads them from the journal.
func results(_ a: Assessment, count: Int) -> [(ResultDocument, IntegrityReport)]? {
    let items = a.sections.flatMap(\.items).map { item in
        "{\"id\": \"\(item.id)\", \"type\": \"\(item.type.rawValue)\", \"response\": \"answer to \(item.id)\", "
            + "\"points\": 1, \"max\": \(item.points), \"flagged\": false, \"outcome\": \"correct\"}"
    }.joined(separator: ",")
    let integrity = IntegrityReport(events: [], interruptions: 0)
    var out: [(ResultDocument, IntegrityReport)] = []
    for n in 0..<count {
        let json = """
            {"session": "session-\(n)", "candidate": "Candidate \(n)", "status": "submitted",
             "assessment": {"id": "\(a.id)", "title": "Benchmark", "fingerprint": "sha256:bench"},
             "started_at": "2026-11-24T09:00:00Z", "ended_at": "2026-11-24T10:00:00Z", "time_used_seconds": 3600,
             "interruptions": 0, "score": {"points": 1, "max": 2, "pending": 0}, "items": [\(items)], "events": []}
            """
        guard let doc = try? JSONDecoder().decode(ResultDocument.self, from: Data(json.utf8)) else { return nil }
        out.append((doc, integrity))
    }
    return out
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
                                           maxDuration: .seconds(3), maxIterations: 1000)

    for count in [1_000, 5_000, 50_000] {
        let bytes = Array(assessmentText(count).utf8)
        Benchmark("Read and validate \(count) items", configuration: .init(maxIterations: count >= 50_000 ? 5 : 30)) { b in
            for _ in b.scaledIterations { blackHole(AssessmentReader.read(bytes: bytes, file: "bench.yaml")) }
        }
    }

    for count in [16, 15_000] {
        guard let a = assessment(count) else { fatalError("the benchmark assessment does not validate") }
        let middle = model(a, at: count / 2)
        Benchmark("Frame at \(count) items") { b in
            for _ in b.scaledIterations { blackHole(Views.render(middle, width: 80, height: 24)) }
        }
        Benchmark("Key through the model and a frame at \(count) items") { b in
            var m = model(a, at: (count / 2) / 8 * 8)  // a text item
            for i in b.scaledIterations {
                blackHole(m.handle(.character(Character(UnicodeScalar(UInt8(97 + i % 26)))), now: Double(i)))
                blackHole(Views.render(m, width: 80, height: 24))
            }
        }
        Benchmark("Review screen at \(count) items") { b in
            var m = model(a, at: count / 2)
            if var reviewing = m.session {
                reviewing.status = .review
                m.show(reviewing)
            }
            for _ in b.scaledIterations { blackHole(Views.render(m, width: 80, height: 24)) }
        }
    }

    Benchmark("Commit an answer (one transaction, synchronous FULL)", configuration: .init(maxIterations: 2000)) { b in
        guard let a = assessment(16) else { fatalError("the benchmark assessment does not validate") }
        let dir = FileManager.default.temporaryDirectory.path + "/carrel-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }  // a scratch folder
        let source = StoredAssessment(bytes: Data(assessmentText(16).utf8), path: "bench.yaml")
        let runtime = try SessionRuntime.begin(assessment: a, source: source, candidate: "Bench", extraTime: .none,
                                               context: quietContext(dir))
        b.startMeasurement()
        for i in b.scaledIterations {
            blackHole(runtime.send(.answer("q0", .text("answer \(i)"))))
        }
        b.stopMeasurement()
        _ = runtime.send(.hangUp("benchmark over"))
    }

    // What a seat does with each command the store hands it: the Ed25519 signature over the
    // envelope, then the envelope read and checked (issue 25's goal: under 1 ms).
    Benchmark("Verify a signed proctor command at a seat", configuration: .init(maxIterations: 5000)) { b in
        let key = try ProctorKey.make(passphrase: "bench proctor phrase", logRounds: 10)
        guard let signing = key.signingKey(passphrase: "bench proctor phrase") else { fatalError("the bench key does not derive") }
        let now = Date()
        let envelope = CommandEnvelope(room: "lab", seat: "A1", action: .message(String(repeating: "Question 3 ", count: 45)),
                                       sequence: CommandEnvelope.nextSequence(now: now, after: 0),
                                       issued: now.timeIntervalSince1970, fingerprint: "sha256:" + String(repeating: "ab", count: 32))
        let signed = try SignedCommand.sign(envelope, with: signing)
        let command = SignedCommand(id: 7, envelope: signed.envelope, signature: signed.signature)
        let check = SignedCommand.Check(key: key, room: "lab", seat: "A1", fingerprint: envelope.fingerprint, now: now,
                                        lastSequence: 0)
        b.startMeasurement()
        for _ in b.scaledIterations { blackHole(command.verify(check)) }
        b.stopMeasurement()
    }

    guard let five = assessment(5_000) else { fatalError("the benchmark assessment does not validate") }
    guard let thousand = results(five, count: 1_000) else { fatalError("the benchmark results do not decode") }
    Benchmark("Export 1 000 results of a 5 000-item test as CSV", configuration: .init(maxIterations: 5)) { b in
        // As `results export` does with a journal's stored digests: one layout, then each
        // result's heading and its ready CSV fields.
        let stored = thousand.map { (ResultDigest($0.0), $0.1) }.map { ($0.0, $0.1, CSV.fields($0.0.cells)) }
        for _ in b.scaledIterations {
            let layout = CSV.layout(stored.map { ($0.0.heading.assessment.id, $0.0.items) })
            var text = CSV.header(layout)
            for (digest, integrity, csv) in stored {
                text += CSV.row(digest.heading, integrity: integrity, items: digest.items, csv: csv, cells: nil, in: layout) ?? ""
            }
            blackHole(text)
        }
    }
}
