#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLinux
import Foundation

/// What clearing one pasteboard did.
public enum PasteboardOutcome: Sendable, Equatable {
    case cleared(String)
    case notPresent
    case failed(String)
}

public struct PasteboardReport: Sendable, Equatable {
    public var backend: String
    public var outcome: PasteboardOutcome
    public init(backend: String, outcome: PasteboardOutcome) {
        self.backend = backend
        self.outcome = outcome
    }

    /// The `pasteboard_cleared` event detail: "tmux: cleared 2 buffers", "X11: not present".
    public var detail: String {
        switch outcome {
        case let .cleared(what): return "\(backend): cleared \(what)"
        case .notPresent: return "\(backend): not present"
        case let .failed(why): return "\(backend): failed — \(why)"
        }
    }
}

/// One kind of clipboard Carrel knows how to empty.
public protocol PasteboardBackend: Sendable {
    var name: String { get }
    func clear() -> PasteboardOutcome
    /// The same, given the way out from this terminal already found (found once for every
    /// backend of a clearing: the multiplexers' backends look along it).
    func clear(around chain: TerminalChain.Found) -> PasteboardOutcome
}

extension PasteboardBackend {
    public func clear(around chain: TerminalChain.Found) -> PasteboardOutcome { clear() }
}

/// Every backend, asked in turn; none is skipped because another failed.
public struct Pasteboards: Sendable {
    public var backends: [any PasteboardBackend]

    public init(backends: [any PasteboardBackend]) { self.backends = backends }

    /// Where a session finds the helpers it runs (tmux, screen, xsel, xclip, wl-copy, pbcopy):
    /// the system's own folders, never the student's PATH — a program of theirs named `tmux`
    /// would run as Carrel's child, where assessment mode does not look, and could say
    /// "not present" of a clipboard it never cleared.
    public static let trustedPath = "/usr/bin:/bin:/usr/local/bin"

    /// What the helpers are given of the session's environment: where the clipboards are, and
    /// nothing that loads code into them (LD_LIBRARY_PATH, LD_PRELOAD and their kind) or points
    /// them at the student's files of settings.
    public static let helperVariables: Set<String> = [
        "DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "TMUX", "TMUX_TMPDIR", "STY", "SCREENDIR", "HOME",
        "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TERM_PROGRAM",
    ]

    public static func system(environment: [String: String], terminal: (any TerminalSink)? = nil) -> Pasteboards {
        var environment = environment.filter { helperVariables.contains($0.key) }
        environment["PATH"] = trustedPath
        return Pasteboards(backends: [
            TmuxPasteboard(environment: environment),
            ScreenPasteboard(environment: environment),
            X11Pasteboard(environment: environment),
            WaylandPasteboard(environment: environment),
            MacPasteboard(environment: environment),
            OSC52Pasteboard(environment: environment, terminal: terminal),
        ])
    }

    public func clearAll() -> [PasteboardReport] {
        let chain = TerminalChain.find()
        return backends.map { PasteboardReport(backend: $0.name, outcome: $0.clear(around: chain)) }
    }
}

/// Every paste buffer of the tmux servers a session can be reached from: the one named by
/// $TMUX, every server in the user's socket folders (the default /tmp/tmux-UID always, and
/// $TMUX_TMPDIR's: a variable set for Carrel alone hides no folder), and the server holding
/// Carrel's own terminal whatever the variables say (its socket can be anywhere, `-S`). Each
/// server is listed again after its buffers are deleted: buffers that keep coming back (a hook
/// of the server's, another client adding them) and a server that does not answer are failures.
public struct TmuxPasteboard: PasteboardBackend {
    public let name = "tmux"
    let environment: [String: String]
    public init(environment: [String: String]) { self.environment = environment }

    /// A helper that has not answered by then is not waited for (a server can be made to stall).
    static let deadline = 3.0
    /// Seconds after which no further socket is tried.
    static let budget = 6.0
    /// Lists of a server's buffers before buffers that keep coming back count as a failure.
    static let rounds = 4

    func sockets(holders: [TerminalMultiplexer.Holder]) -> [String] {
        var found: [String] = []
        if let tmux = environment["TMUX"], let path = tmux.split(separator: ",").first, !path.isEmpty {
            found.append(String(path))
        }
        var bases = ["/tmp"]
        if let base = environment["TMUX_TMPDIR"], !base.isEmpty, !bases.contains(base) { bases.append(base) }
        for base in bases {
            let dir = "\(base)/tmux-\(getuid())"
            // No socket directory means no tmux server of this user there.
            for name in (TerminalMultiplexer.entries(dir) ?? []).sorted() {
                let path = "\(dir)/\(name)"
                var info = stat()
                if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK && !found.contains(path) {
                    found.append(path)
                }
            }
        }
        for path in holders.flatMap(\.controlChannels) where path.hasPrefix("/") && !found.contains(path) { found.append(path) }
        return found
    }

    public func clear() -> PasteboardOutcome { clear(around: TerminalChain.find()) }

    public func clear(around chain: TerminalChain.Found) -> PasteboardOutcome {
        let tmux = ProcessRunner.which("tmux", environment: environment)
        var failures = Self.unclearable(chain.holders, tmux: tmux, screen: ProcessRunner.which("screen", environment: environment))
        if !chain.complete { failures.append("the terminals around this one were not all looked at within 3 s") }
        guard let tmux else { return failures.isEmpty ? .notPresent : .failed(failures.joined(separator: "; ")) }
        var servers = 0, deleted = 0
        var strangers = 0
        // Sockets that do not answer each take a deadline: past the budget the rest are said
        // to be unchecked (a folder of made-up sockets must not hold a begin for minutes).
        let holders = chain.holders.filter { $0.runs(tmux) }
        let started = Date(), all = sockets(holders: holders)
        var reached: Set<Int32> = []
        for (index, socket) in all.enumerated() {
            if Date().timeIntervalSince(started) > Self.budget {
                failures.append("\(all.count - index) tmux socket(s) not checked: the others took more than \(Int(Self.budget)) s")
                break
            }
            switch Self.server(socket, tmux: tmux) {
            case .none: continue
            case .other:
                strangers += 1
                continue
            case .tmux: break
            }
            if let peer = UnixPeer.listener(socket) { reached.insert(peer.pid) }
            let emptied = empty(socket, tmux: tmux, until: started.addingTimeInterval(Self.budget))
            deleted += emptied.deleted
            if emptied.answered { servers += 1 }
            if let why = emptied.failure { failures.append(why) }
        }
        // The server holding this terminal pastes into it through its clients whether or not
        // its socket is still there to reach it by.
        // The server itself must have answered: a path now served by another server is not it.
        for holder in holders where !reached.contains(holder.pid) {
            failures.append("the tmux server holding this terminal (pid \(holder.pid)) cannot be reached: its socket is gone or leads to another server, so its buffers could not be cleared")
        }
        if strangers > 0 {
            failures.append("\(strangers) tmux socket(s) served by a program that is not this machine's tmux, which Carrel does not talk to")
        }
        if !failures.isEmpty { return .failed(failures.joined(separator: "; ")) }
        guard servers > 0 else { return .notPresent }
        let plural = deleted == 1 ? "buffer" : "buffers"
        return .cleared(servers == 1 ? "\(deleted) \(plural)" : "\(deleted) \(plural) on \(servers) servers")
    }

    /// Deletes every buffer of the server at `socket` and lists them again, until two lists a
    /// moment apart find none (a hook runs after the command that set it off: a buffer it
    /// adds back shows in the next list, not in the one that set it off).
    func empty(_ socket: String, tmux: String, until deadline: Date) -> (deleted: Int, answered: Bool, failure: String?) {
        var deleted = 0, emptyLists = 0
        for list in 0..<(2 * Self.rounds) {
            if Date() > deadline {
                return (deleted, true, "a tmux server's buffers were not all deleted within \(Int(Self.budget)) s")
            }
            let listed = ProcessRunner.run(tmux, ["-S", socket, "list-buffers", "-F", "#{buffer_name}"], environment: environment,
                                           timeout: Self.deadline)
            guard listed.status == 0 else {
                if listed.timedOut {
                    return (deleted, true, "a tmux server did not list its buffers within \(Int(Self.deadline)) s; they may still be there")
                }
                // The server ended since it was asked: nothing of it is left to paste.
                if Self.server(socket, tmux: tmux) == .none { return (deleted, list > 0, nil) }
                return (deleted, true, "a tmux server would not list its buffers (tmux exited \(listed.status))")
            }
            let names = listed.output.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
            if names.isEmpty {
                emptyLists += 1
                if emptyLists == 2 { return (deleted, true, nil) }
                usleep(50_000)
                continue
            }
            emptyLists = 0
            // Many at a time, as one command sequence (a student may make thousands of buffers).
            for start in stride(from: 0, to: names.count, by: 200) {
                if Date() > deadline { break }
                let batch = names[start..<min(names.count, start + 200)]
                // tmux reads an argument ending in ";" as the end of a command: a name ending so
                // has that ";" escaped (tmux takes "\;" back to ";").
                let sequence = batch.enumerated().flatMap { i, buffer in
                    (i > 0 ? [";"] : []) + ["delete-buffer", "-b", buffer.hasSuffix(";") ? buffer.dropLast() + "\\;" : buffer]
                }
                let r = ProcessRunner.run(tmux, ["-S", socket] + sequence, environment: environment, timeout: Self.deadline)
                if r.status == 0 { deleted += batch.count }
            }
        }
        return (deleted, true, "a tmux server still had buffers after \(Self.rounds) rounds of deleting them (they could not be deleted, or a hook of that server or another program adds them back)")
    }
}

extension TmuxPasteboard {
    enum Server { case none, tmux, other }

    /// The programs on the way out from this terminal that other programs can reach (a
    /// listening socket or FIFO: a multiplexer's) and that are neither this machine's tmux nor
    /// its screen (a copy, dtach, abduco, zellij…): whatever they keep, Carrel cannot clear.
    static func unclearable(_ holders: [TerminalMultiplexer.Holder], tmux: String?, screen: String?) -> [String] {
        holders.filter { holder in
            !holder.controlChannels.isEmpty && !(tmux.map(holder.runs) ?? false) && !(screen.map(holder.runs) ?? false)
        }.map { "\($0.name) (pid \($0.pid)) holds this terminal and others can reach it, but it is not this machine's tmux or screen: what it keeps cannot be cleared" }
    }

    static func server(_ socket: String, tmux: String) -> Server {
        guard let peer = UnixPeer.listener(socket) else { return .none }
        return peer.pid > 0 && TerminalMultiplexer.process(peer.pid, runs: tmux) ? .tmux : .other
    }
}

/// GNU screen, when running inside it: its paste register and every named register (`a`–`z`,
/// `0`–`9`, which `paste` puts in the paste register), in one `eval`; and screen's exchange
/// file (`readbuf` and `writebuf` carry text through it between sessions and programs).
public struct ScreenPasteboard: PasteboardBackend {
    public let name = "screen"
    let environment: [String: String]
    /// screen's default exchange file (`bufferfile`).
    public var exchangeFile = "/tmp/screen-exchange"

    public init(environment: [String: String]) { self.environment = environment }

    static let registers = ["."] + "abcdefghijklmnopqrstuvwxyz0123456789".map(String.init)

    public func clear() -> PasteboardOutcome { clear(around: TerminalChain.find()) }

    public func clear(around chain: TerminalChain.Found) -> PasteboardOutcome {
        let exchange = emptyExchangeFile()
        let screen = ProcessRunner.which("screen", environment: environment)
        // STY's session, and the screen holding this terminal whatever STY says (its socket's
        // folder is its SCREENDIR).
        var sessions: [(name: String, folder: String?)] = []
        if let sty = environment["STY"], !sty.isEmpty { sessions.append((sty, nil)) }
        var unreachable: [Int32] = []
        let holders = screen.map { program in chain.holders.filter { $0.runs(program) } } ?? []
        for holder in holders {
            // Its own socket, which answers from that very process (a path now leading to
            // another session is not it).
            let own = holder.controlChannels.filter { $0.hasPrefix("/") && UnixPeer.listener($0)?.pid == holder.pid }
            if own.isEmpty { unreachable.append(holder.pid) }
            for channel in own {
                let path = URL(fileURLWithPath: channel)
                if !sessions.contains(where: { $0.name == path.lastPathComponent }) {
                    sessions.append((path.lastPathComponent, path.deletingLastPathComponent().path))
                }
            }
        }
        if !unreachable.isEmpty || (screen != nil && !chain.complete) {
            let which = unreachable.map { "pid \($0)" }.joined(separator: ", ")
            return .failed(unreachable.isEmpty ? "the terminals around this one were not all looked at within 3 s"
                                               : "the screen holding this terminal (\(which)) cannot be reached: its socket is gone or leads elsewhere")
        }
        guard !sessions.isEmpty else { return exchange ? .cleared("the exchange file \(exchangeFile)") : .notPresent }
        guard let screen else { return .failed("inside screen but the screen command is not on PATH") }
        let commands = Self.registers.map { "register \($0) \"\"" }
        for session in sessions {
            var environment = environment
            if let folder = session.folder { environment["SCREENDIR"] = folder }
            let r = ProcessRunner.run(screen, ["-S", session.name, "-X", "eval"] + commands, environment: environment, timeout: 3)
            guard r.status == 0 else { return .failed(r.timedOut ? "timed out" : "screen exited \(r.status)") }
        }
        return .cleared("the paste register and the named registers" + (exchange ? ", and the exchange file \(exchangeFile)" : ""))
    }

    /// Empties the exchange file when it is this user's own regular file with text in it
    /// (opened without following a link, and without waiting on a FIFO); true when it did.
    func emptyExchangeFile() -> Bool {
        let fd = open(exchangeFile, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid(), info.st_size > 0 else { return false }
        return ftruncate(fd, 0) == 0
    }
}

/// Wayland clipboard and primary selection through wl-copy.
public struct WaylandPasteboard: PasteboardBackend {
    public let name = "Wayland"
    let environment: [String: String]
    public init(environment: [String: String]) { self.environment = environment }

    public func clear() -> PasteboardOutcome {
        guard let display = environment["WAYLAND_DISPLAY"], !display.isEmpty else { return .notPresent }
        guard let wlCopy = ProcessRunner.which("wl-copy", environment: environment) else {
            return .failed("WAYLAND_DISPLAY is set but wl-copy (wl-clipboard) is not installed")
        }
        let a = ProcessRunner.run(wlCopy, ["--clear"], environment: environment)
        let b = ProcessRunner.run(wlCopy, ["--primary", "--clear"], environment: environment)
        if a.status == 0 && b.status == 0 { return .cleared("clipboard and primary") }
        return .failed("wl-copy could not reach \(display)")
    }
}

/// The macOS general pasteboard.
public struct MacPasteboard: PasteboardBackend {
    public let name = "macOS"
    let environment: [String: String]
    public init(environment: [String: String]) { self.environment = environment }

    public func clear() -> PasteboardOutcome {
        #if os(macOS)
        guard let pbcopy = ProcessRunner.which("pbcopy", environment: environment) else { return .failed("pbcopy not found") }
        let r = ProcessRunner.run(pbcopy, [], input: "", environment: environment)
        return r.status == 0 ? .cleared("the general pasteboard") : .failed("pbcopy exited \(r.status)")
        #else
        return .notPresent
        #endif
    }
}

/// Somewhere to write terminal control output (the controlling terminal).
public protocol TerminalSink: Sendable {
    func send(_ bytes: [UInt8]) -> Bool
}

/// The process's controlling terminal, opened for each write.
public struct ControllingTerminal: TerminalSink {
    public init() {}
    public func send(_ bytes: [UInt8]) -> Bool {
        let fd = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return SecureFiles.writeAll(fd, Data(bytes))
    }
}

/// OSC 52 with a `!` payload asks the terminal itself to drop its clipboard; sent only to
/// terminals known to honour it, since others may print it.
public struct OSC52Pasteboard: PasteboardBackend {
    public let name = "OSC 52"
    let environment: [String: String]
    let terminal: (any TerminalSink)?

    public init(environment: [String: String], terminal: (any TerminalSink)?) {
        self.environment = environment
        self.terminal = terminal
    }

    static let knownTerminals = ["kitty", "foot", "alacritty", "wezterm", "iterm.app", "contour"]

    var honoured: Bool {
        let term = (environment["TERM"] ?? "").lowercased()
        let program = (environment["TERM_PROGRAM"] ?? "").lowercased()
        return Self.knownTerminals.contains { term.contains($0) || program.contains($0) }
    }

    public func clear() -> PasteboardOutcome {
        guard honoured, let terminal else { return .notPresent }
        let sequence: [UInt8] = [0x1B, 0x5D] + Array("52;c;!".utf8) + [0x1B, 0x5C]
        return terminal.send(sequence) ? .cleared("the terminal clipboard (request sent)") : .failed("no controlling terminal")
    }
}
