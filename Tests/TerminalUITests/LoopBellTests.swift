import Foundation
import Testing
@testable import TerminalUI

/// The store's news reaches a screen as an input, at once, not by being looked for.
@Suite("The loop's bell")
struct LoopBellTests {
    @Test func aBellRungFromAnotherThreadIsOneStoreInputAndOnlyOnce() async {
        let terminal = MemoryTerminal()
        terminal.input = [[], [], []]
        let reader = InputReader(canvas: terminal, monotonic: { 0 })
        let bell = LoopBell()
        #expect(bell.works)
        reader.bell = bell
        #expect(!reader.next(waitingAtMost: 0).contains(.store), "nothing rang")
        await Task.detached {
            bell.ring()
            bell.ring()
        }.value
        #expect(reader.next(waitingAtMost: 0).filter { $0 == .store }.count == 1, "two rings before a read are one input")
        #expect(!reader.next(waitingAtMost: 0).contains(.store), "and it is taken once")
    }

    @Test func aRingEndsTheCanvasWaitAtOnce() throws {
        // The pipe's read end is what the canvas polls beside the terminal: readable once rung.
        let bell = LoopBell()
        let fd = try #require(bell.readEnd)
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        #expect(poll(&fds, 1, 0) == 0, "nothing to read before a ring")
        bell.ring()
        #expect(poll(&fds, 1, 0) == 1, "readable at once after it")
        #expect(bell.drain())
        #expect(!bell.drain())
    }
}
