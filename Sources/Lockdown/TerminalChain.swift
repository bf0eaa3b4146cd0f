#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The processes a session's terminal leads to: those holding its master (a multiplexer, a
/// relay such as `script`, a terminal emulator), the terminals they in turn work in (a relay's
/// own terminal, the terminals of a tmux server's attached clients), the processes holding
/// those, and so on, a few levels out: a multiplexer anywhere on that way pastes into the
/// session. Only a server the kernel says runs this machine's tmux is asked for its clients,
/// and their terminals are taken as tmux names them, not as a client says of itself.
public enum TerminalChain {
    public struct Found: Sendable {
        public var holders: [TerminalMultiplexer.Holder]
        /// False when the deadline came before every level was looked at.
        public var complete: Bool
    }

    static let levels = 4

    public static func find(tmux: String?, environment: [String: String], within seconds: Double = 3) -> Found {
        let me = getpid(), deadline = Date().addingTimeInterval(seconds)
        var all: [TerminalMultiplexer.Holder] = []
        var seenPtys = Set(TerminalMultiplexer.ptyIndexes(pid: me)), level = Array(seenPtys)
        for _ in 0..<levels where !level.isEmpty {
            var next: [Int] = []
            for index in level {
                if Date() > deadline { return Found(holders: all, complete: false) }
                for holder in TerminalMultiplexer.holders(ofPty: index, excluding: me) where !all.contains(where: { $0.pid == holder.pid }) {
                    all.append(holder)
                    for terminal in terminals(of: holder, tmux: tmux, environment: environment) {
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

    /// The terminals `holder` works in: its own, and a tmux server's clients'.
    static func terminals(of holder: TerminalMultiplexer.Holder, tmux: String?, environment: [String: String]) -> [String] {
        var out = holder.ownTerminal.map { [$0] } ?? []
        guard let tmux, holder.runs(tmux) else { return out }
        for socket in holder.controlChannels where socket.hasPrefix("/") && UnixPeer.listener(socket)?.pid == holder.pid
            && TmuxPasteboard.server(socket, tmux: tmux) == .tmux {
            let clients = ProcessRunner.run(tmux, ["-S", socket, "list-clients", "-F", "#{client_tty}"], environment: environment,
                                            timeout: TmuxPasteboard.deadline)
            out += clients.output.split(separator: "\n").map(String.init)
        }
        return out
    }
}
