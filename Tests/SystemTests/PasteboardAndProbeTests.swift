#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Lockdown
import Testing

/// Writes a script through a close-on-exec descriptor: a process another test starts at the
/// same moment must not inherit it open for writing, or running it fails with ETXTBSY for as
/// long as that process lives.
func writeExecutable(_ text: String, to path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
        throw POSIXError(.EIO)
    }
}

/// Stands in for xsel, xclip, wl-copy and screen: a script that records its arguments.
struct FakeTools {
    let dir: String
    let log: String

    init(_ box: Sandbox, _ names: [String], exitCode: Int = 0) throws {
        dir = box.root + "/bin-\(UUID().uuidString.prefix(6))"
        log = dir + "/calls.log"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in names {
            let script = "#!/bin/sh\necho \"\(name) $*\" >> \"\(log)\"\nexit \(exitCode)\n"
            let path = "\(dir)/\(name)"
            try writeExecutable(script, to: path)
        }
    }

    var calls: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Only the stand-ins are on PATH (their scripts use shell builtins alone), so the real
    /// tools the machine may have installed are never found instead.
    func environment(_ extra: [String: String]) -> [String: String] {
        extra.merging(["PATH": dir]) { $1 }
    }
}

final class RecordingTerminal: TerminalSink, @unchecked Sendable {
    var sent: [[UInt8]] = []
    func send(_ bytes: [UInt8]) -> Bool {
        sent.append(bytes)
        return true
    }
}

@Suite("Pasteboard backends and environment probes")
// The backends run helpers through the product's runner, which waits synchronously for work on
// Swift's shared pool: called on the main actor, as carrel calls it, never from a pool thread.
@MainActor
struct PasteboardAndProbeTests {
    /// Clears one backend in the test driver, a process of its own, with only `tools` on PATH.
    /// The machine's X sockets and screen's exchange file are looked for in folders of the
    /// tools' own (the real ones may hold other tests' displays and files).
    func clear(_ backend: String, _ tools: FakeTools, _ extra: [String: String]) -> String {
        let places = ["DRIVER_X11_SOCKETS": tools.dir + "/x11-unix", "DRIVER_SCREEN_EXCHANGE": tools.dir + "/screen-exchange"]
        let r = ChildSpawn.run(ChildProcess.driver, ["pasteboard", backend], environment: tools.environment(places.merging(extra) { $1 }),
                               timeout: 60)
        return r.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let withoutXprop = "CLIPBOARD, PRIMARY and SECONDARY (cut buffers not checked: xprop, from x11-utils, is not installed)"

    /// xsel, else xclip: every selection cleared, then read back.
    @Test(arguments: [("xsel", ["--clipboard --clear", "--primary --clear", "--secondary --clear",
                                "--clipboard --output", "--primary --output", "--secondary --output"]),
                      ("xclip", ["-selection clipboard -i", "-selection primary -i", "-selection secondary -i",
                                 "-selection clipboard -o", "-selection primary -o", "-selection secondary -o"])])
    func x11ClearsEverySelectionAndReadsItBack(tool: String, calls: [String]) throws {
        let box = try Sandbox()
        let tools = try FakeTools(box, [tool])
        #expect(clear("x11", tools, ["DISPLAY": ":9"]) == "\(PasteboardOutcome.cleared(Self.withoutXprop))")
        #expect(tools.calls == calls.map { "\(tool) \($0)" })
    }

    /// The root window's cut buffers that are there are removed through xprop, each read a few
    /// bytes long (a huge one cannot push another out of what is read), and read again.
    @Test func x11RemovesTheCutBuffersThatAreThere() throws {
        let box = try Sandbox()
        let tools = try FakeTools(box, ["xsel"])
        try writeExecutable("""
            #!/bin/sh
            echo "xprop $*" >> "\(tools.log)"
            case "$*" in
              -len*) [ -e "\(tools.dir)/removed" ] || printf 'CUT_BUFFER0(STRING) = "note"\nCUT_BUFFER1:  not found.\nCUT_BUFFER3(STRING) = "more"\n' ;;
              *-remove*) : > "\(tools.dir)/removed" ;;
            esac
            exit 0
            """, to: tools.dir + "/xprop")
        #expect(clear("x11", tools, ["DISPLAY": ":9.1"]) == "\(PasteboardOutcome.cleared("CLIPBOARD, PRIMARY, SECONDARY and the cut buffers"))")
        let list = "xprop -len 4 -root " + (0...7).map { "CUT_BUFFER\($0)" }.joined(separator: " ")
        #expect(tools.calls.filter { $0.hasPrefix("xprop") } == [list, "xprop -root -remove CUT_BUFFER0", "xprop -root -remove CUT_BUFFER3", list])
    }

    /// Cut buffers set again as soon as they are removed are a failure.
    @Test func x11SaysWhenACutBufferIsSetAgain() throws {
        let box = try Sandbox()
        let tools = try FakeTools(box, ["xsel"])
        try writeExecutable("#!/bin/sh\ncase \"$*\" in -len*) printf 'CUT_BUFFER0(STRING) = \"n\"\\n' ;; esac\nexit 0\n", to: tools.dir + "/xprop")
        #expect(clear("x11", tools, ["DISPLAY": ":9"])
                == "\(PasteboardOutcome.failed("CUT_BUFFER0 on display :9 set again as soon as removed: another program keeps setting it"))")
    }

    /// A display listening on TCP alone is found from the kernel's table of listening sockets.
    @Test func x11FindsDisplaysListeningOnTCPAlone() {
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:177D 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 123 1
               1: 00000000:1771 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 124 1
               2: 0100007F:177E 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1001        0 125 1
               3: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 126 1
               4: 0100007F:181F 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 127 1
            """
        // 0x177D = 6013, 0x1771 = 6001 and 0x181F = 6175 listen; 0x177E is a connection, 0x1F90
        // (8080) no display.
        #expect(X11Pasteboard.listeningDisplays(table) == [13: 1001, 1: 0, 175: 1001])
    }

    /// A selection that holds text again each time it is read back is not reported cleared.
    @Test func x11SaysWhenASelectionIsTakenBack() throws {
        let box = try Sandbox()
        let tools = try FakeTools(box, [])
        try writeExecutable("#!/bin/sh\ncase \"$*\" in *primary*--output*) printf kept ;; esac\nexit 0\n", to: tools.dir + "/xsel")
        #expect(clear("x11", tools, ["DISPLAY": ":9"])
                == "\(PasteboardOutcome.failed("PRIMARY on display :9 holds text again as soon as it is cleared: another program keeps taking it back"))")
    }

    /// With no DISPLAY, or one that names another display, every local display is cleared.
    @Test func x11ClearsEveryLocalDisplayNotOnlyTheOneNamed() throws {
        let box = try Sandbox()
        let tools = try FakeTools(box, [])
        try writeExecutable("#!/bin/sh\necho \"xsel $DISPLAY $*\" >> \"\(tools.log)\"\nexit 0\n", to: tools.dir + "/xsel")
        let sockets = tools.dir + "/x11-unix"
        try FileManager.default.createDirectory(atPath: sockets, withIntermediateDirectories: true)
        for name in ["X0", "X12"] { try UnixSocketFile.make(at: sockets + "/" + name) }
        // Not a display: a regular file with a display's name, and a name that is no number.
        FileManager.default.createFile(atPath: sockets + "/X5", contents: Data())
        try UnixSocketFile.make(at: sockets + "/Xtra")
        #expect(clear("x11", tools, [:]) == "\(PasteboardOutcome.cleared(Self.withoutXprop + " on :0, :12"))")
        #expect(Set(tools.calls.compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) }) == [":0", ":12"])
        #expect(clear("x11", tools, ["DISPLAY": ":12.0"]) == "\(PasteboardOutcome.cleared(Self.withoutXprop + " on :12.0, :0"))")
    }

    /// The student's PATH never chooses the helpers a session runs: a program of theirs named
    /// tmux, screen, xsel or xclip is not run (it would run as Carrel's child, where assessment
    /// mode does not look, and could say a clipboard is not there).
    @Test func theSystemsPasteboardsNeverRunAProgramFromTheStudentsPath() throws {
        let box = try Sandbox()
        let tools = try FakeTools(box, ["tmux", "screen", "xsel", "xclip", "wl-copy"])
        let environment = tools.environment(["TMUX": box.root + "/tmux-socket,1,0", "STY": "1.pts-0.x", "DISPLAY": ":9",
                                             "WAYLAND_DISPLAY": "wayland-9"])
        _ = Pasteboards.system(environment: environment).clearAll()
        #expect(tools.calls.isEmpty, "\(tools.calls)")
        // Nor any variable that loads code into the helpers the session does run.
        for variable in ["LD_LIBRARY_PATH", "LD_PRELOAD", "LD_AUDIT", "GCONV_PATH", "TMUX_CONF", "PATH"] {
            #expect(!Pasteboards.helperVariables.contains(variable), "\(variable)")
        }
        #expect(Pasteboards.trustedPath.split(separator: ":").allSatisfy { $0.hasPrefix("/usr/") || $0 == "/bin" })
    }

    @Test func x11WithoutDisplayIsNotPresentAndWithoutToolsFails() throws {
        let box = try Sandbox()
        let tools = try FakeTools(box, [])
        var x11 = X11Pasteboard(environment: tools.environment([:]))
        x11.socketDirectory = box.root + "/no-x11-unix"
        #expect(x11.clear() == .notPresent)
        var named = X11Pasteboard(environment: tools.environment(["DISPLAY": ":9"]))
        named.socketDirectory = x11.socketDirectory
        let none = named.clear()
        #expect(none == .failed("DISPLAY is set but neither xsel nor xclip is installed"))
    }

    @Test func x11ReportsAToolThatFails() throws {
        let box = try Sandbox()
        let tools = try FakeTools(box, ["xsel"], exitCode: 1)
        #expect(clear("x11", tools, ["DISPLAY": ":9"]) == "\(PasteboardOutcome.failed("xsel could not reach display :9"))")
    }

    @Test func waylandClearsClipboardAndPrimary() throws {
        let box = try Sandbox()
        let tools = try FakeTools(box, ["wl-copy"])
        #expect(clear("wayland", tools, ["WAYLAND_DISPLAY": "wayland-0"]) == "\(PasteboardOutcome.cleared("clipboard and primary"))")
        #expect(tools.calls == ["wl-copy --clear", "wl-copy --primary --clear"])
        #expect(WaylandPasteboard(environment: tools.environment([:])).clear() == .notPresent)
    }

    @Test func screenEmptiesEveryRegisterAndItsExchangeFile() throws {
        let box = try Sandbox()
        let tools = try FakeTools(box, ["screen"])
        #expect(clear("screen", tools, ["STY": "1234.pts-0.lab"]) == "\(PasteboardOutcome.cleared("the paste register and the named registers"))")
        let registers = ["."] + "abcdefghijklmnopqrstuvwxyz0123456789".map(String.init)
        #expect(tools.calls == ["screen -S 1234.pts-0.lab -X eval " + registers.map { "register \($0) \"\"" }.joined(separator: " ")])
        // The exchange file (`readbuf`, `writebuf`) is emptied, inside screen or not.
        let exchange = tools.dir + "/screen-exchange"
        FileManager.default.createFile(atPath: exchange, contents: Data("notes".utf8))
        #expect(clear("screen", tools, [:]) == "\(PasteboardOutcome.cleared("the exchange file \(exchange)"))")
        #expect((try? Data(contentsOf: URL(fileURLWithPath: exchange)))?.isEmpty == true)
        // Never through a link: the file it names is left as it is.
        let target = box.root + "/elsewhere"
        FileManager.default.createFile(atPath: target, contents: Data("kept".utf8))
        try FileManager.default.removeItem(atPath: exchange)
        try FileManager.default.createSymbolicLink(atPath: exchange, withDestinationPath: target)
        #expect(clear("screen", tools, [:]) == "\(PasteboardOutcome.notPresent)")
        #expect(String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: target))) ?? Data(), as: UTF8.self) == "kept")
    }

    @Test func osc52IsSentOnlyToTerminalsKnownToHonourIt() {
        let kitty = RecordingTerminal()
        #expect(OSC52Pasteboard(environment: ["TERM": "xterm-kitty"], terminal: kitty).clear() == .cleared("the terminal clipboard (request sent)"))
        #expect(kitty.sent == [[0x1B, 0x5D] + Array("52;c;!".utf8) + [0x1B, 0x5C]])
        let other = RecordingTerminal()
        #expect(OSC52Pasteboard(environment: ["TERM": "xterm-256color"], terminal: other).clear() == .notPresent)
        #expect(other.sent.isEmpty)
    }

    @Test func aHungHelperIsStoppedAtItsDeadline() throws {
        let box = try Sandbox()
        let dir = box.root + "/slow"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try writeExecutable("#!/bin/sh\nsleep 30\n", to: dir + "/xsel")
        let r = ChildSpawn.run(ChildProcess.driver, ["run-helper", dir + "/xsel", "0.5"], environment: ["PATH": "/bin:/usr/bin"], timeout: 60)
        let line = r.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.hasPrefix("timedOut=true "), "\(line)")
        let seconds = line.components(separatedBy: "seconds=").last.flatMap { Int($0) } ?? 99
        #expect(seconds < 20, "stopped at its deadline, not after the helper's 30 s: \(line)")
    }

    @Test func everyBackendIsAskedAndReportedInOrder() {
        struct Fixed: PasteboardBackend {
            let name: String
            let outcome: PasteboardOutcome
            func clear() -> PasteboardOutcome { outcome }
        }
        let reports = Pasteboards(backends: [
            Fixed(name: "tmux", outcome: .cleared("2 buffers")), Fixed(name: "X11", outcome: .notPresent),
            Fixed(name: "Wayland", outcome: .failed("wl-copy missing")),
        ]).clearAll()
        #expect(reports.map(\.detail) == ["tmux: cleared 2 buffers", "X11: not present", "Wayland: failed — wl-copy missing"])
    }

    @Test func probesReadTheEnvironment() {
        let facts = EnvironmentProbe.probe(environment: [
            "TMUX": "/tmp/tmux-0/default,1,0", "LD_PRELOAD": "/tmp/evil.so", "SSH_CONNECTION": "10.0.0.1 5 10.0.0.2 22",
            "TERM": "xterm-256color", "LANG": "C.UTF-8",
        ])
        #expect(facts.multiplexer == "tmux ($TMUX is set)")
        #expect(facts.injectedLibraries == ["LD_PRELOAD"])
        #expect(facts.ssh)
        #expect(facts.utf8Locale)
        #expect(facts.tracerPid == nil, "nothing traces the test runner")
        let plain = EnvironmentProbe.probe(environment: ["TERM": "linux", "LANG": "C"])
        #expect(plain.injectedLibraries.isEmpty)
        #expect(!plain.ssh)
        #expect(!plain.utf8Locale)
    }

    @Test func theParentProcessChainRevealsAMultiplexer() throws {
        let box = try Sandbox()
        let tmux = try #require(TmuxServer(sandbox: box))
        // A shell started by the tmux server, with TMUX unset: only the parent chain tells.
        let out = box.root + "/pane-pid"
        _ = ChildSpawn.run(tmux.tmux, ["-S", tmux.socket, "new-window", "-d", "env -u TMUX sh -c 'echo $$ > \(out); sleep 30'"],
                              environment: tmux.environment)
        var pid: Int32? = nil
        for _ in 0..<100 where pid == nil {
            pid = (try? String(contentsOfFile: out, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            usleep(50_000)
        }
        let facts = EnvironmentProbe.probe(environment: [:], pid: try #require(pid))
        #expect(facts.multiplexer == "tmux (parent process)")
    }

    @Test func preflightRefusesWhatThePolicyRefusesAndSaysHowToRelaxIt() {
        let facts = EnvironmentFacts(multiplexer: "tmux ($TMUX is set)", injectedLibraries: ["LD_PRELOAD"], tracerPid: 77,
                                     ssh: true, term: "dumb")
        var policy = RestrictionPolicy()
        policy.remote = .refuse
        let reasons = Preflight.refusals(facts, policy: policy, needsTerminal: true)
        #expect(reasons.count == 5)
        #expect(reasons[0].remedy.contains("`policy: { multiplexer: allow }`"))
        #expect(reasons[2].reason == "a tracer (pid 77) is attached to Carrel")
        #expect(reasons[4].reason == "the terminal is too limited (TERM is dumb)")
        var relaxed = RestrictionPolicy()
        relaxed.multiplexer = .allow
        relaxed.extensions = .allow
        #expect(Preflight.refusals(facts, policy: relaxed, needsTerminal: false).isEmpty)
    }

    @Test func aRefusedBeginExits69WithTheRemedy() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let strict = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "policy: { multiplexer: allow }\n", with: "")
        try strict.write(toFile: file, atomically: true, encoding: .utf8)
        let child = try box.driver(["begin", file], environment: ["TMUX": "/tmp/nowhere,1,0"])
        #expect(child.waitStatus() == 69)
        let preload = try box.driver(["begin", file], environment: ["LD_PRELOAD": "/nonexistent.so"])
        #expect(preload.waitStatus() == 69)
        #expect(box.location.lockState == .free)
    }
}
