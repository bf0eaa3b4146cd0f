import Foundation
import SessionKit
import Testing

/// The doorbell that wakes a seat's publisher: a ring is never lost, a wait ends at its
/// deadline or when its task is cancelled, and nothing is left running after it. Each wait
/// says whether a ring ended it, so nothing here depends on how busy the machine is.
@Suite("Doorbell")
struct DoorbellTests {
    @Test func aRingBeforeTheWaitIsKeptForItAndUsedOnce() async {
        let bell = Doorbell()
        bell.ring()
        #expect(await bell.wait(seconds: 600), "the kept ring ended the wait")
        #expect(await bell.wait(seconds: 0.1) == false, "one ring, one wait")
    }

    @Test func aRingWakesAWaiter() async {
        let bell = Doorbell()
        let rung = await withTaskGroup(of: Bool?.self) { group in
            group.addTask { await bell.wait(seconds: 600) }
            group.addTask {
                try? await Task.sleep(nanoseconds: 50_000_000)
                bell.ring()
                return nil
            }
            var rung: Bool?
            for await outcome in group { if let outcome { rung = outcome } }
            return rung
        }
        #expect(rung == true, "woken by the ring, not the deadline")
    }

    @Test func aWaitEndsAtItsDeadline() async {
        let started = Date()
        #expect(await Doorbell().wait(seconds: 0.2) == false)
        #expect(Date().timeIntervalSince(started) >= 0.19)
    }

    @Test func aCancelledWaitEndsWithoutARingAndTheNextRingIsKept() async {
        let bell = Doorbell()
        let waiting = Task { await bell.wait(seconds: 600) }
        waiting.cancel()
        #expect(await waiting.value == false, "cancellation ended the wait")
        bell.ring()
        #expect(await bell.wait(seconds: 600), "a ring after a cancelled wait is kept for the next one")
    }
}
