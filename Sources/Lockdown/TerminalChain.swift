#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The processes a session's terminal leads to: those holding its master (a multiplexer, a
/// relay such as `script`, a terminal emulator), the terminals they in turn work in (a relay's
/// own terminal, the terminals of a tmux server's attached clients), the processes holding
/// those, and so on, a few levels out: a multiplexer anywhere on that way pastes into the
/// session.
public enum TerminalChain {
    public struct Found: Sendable {
        public var holders: [TerminalMultiplexer.Holder]
        /// False when the deadline came before every level was looked at.
        public var complete: Bool
    }

    static let levels = 4

    public static func find(within seconds: Double = 3) -> Found {
        let me = getpid(), deadline = Date().addingTimeInterval(seconds)
        var all: [TerminalMultiplexer.Holder] = []
        var seenPtys = Set(TerminalMultiplexer.ptyIndexes(pid: me)), level = Array(seenPtys)
        for _ in 0..<levels where !level.isEmpty {
            var next: [Int] = []
            for index in level {
                if Date() > deadline { return Found(holders: all, complete: false) }
                for holder in TerminalMultiplexer.holders(ofPty: index, excluding: me) where !all.contains(where: { $0.pid == holder.pid }) {
                    all.append(holder)
                    for terminal in terminals(of: holder) {
                        if let n = TerminalMultiplexer.ptsNumber(terminal), !seenPtys.contains(n) {
                            seenPtys.insert(n)
                            next.append(n)
                        }
                    }
                }
            }
            level = next
        }
        return Found(holders: all, complete: true)
    }

    /// The terminals `holder` works in: every pseudo-terminal slave it has open (its own, a
    /// relay's, and those of a multiplexer's attached clients, which tmux and screen keep open
    /// to draw on), read from /proc: nothing is asked of the holder, whose socket a student
    /// could swap for another program's between a check and a question.
    static func terminals(of holder: TerminalMultiplexer.Holder) -> [String] {
        var out = holder.ownTerminal.map { [$0] } ?? []
        for fd in TerminalMultiplexer.entries("/proc/\(holder.pid)/fd") ?? [] {
            if let link = TerminalMultiplexer.readLink("/proc/\(holder.pid)/fd/\(fd)"), link.hasPrefix("/dev/pts/"), !out.contains(link) {
                out.append(link)
            }
        }
        return out
    }
}
