#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// X11's selections on every display this user can reach: the session's DISPLAY, and every
/// local display with a socket in /tmp/.X11-unix (a student's DISPLAY may name a display of
/// theirs while their desktop, on another, holds the text, or be unset). On each: CLIPBOARD,
/// PRIMARY and SECONDARY (xsel clears them; xclip claims them with empty text), and the root
/// window's cut buffers through xprop (xterm pastes CUT_BUFFER0 when PRIMARY is empty). Each
/// selection is read back once cleared: one that another program takes straight back holds
/// text again, which is a failure, never "cleared". A display this user's credentials do not
/// open (another user's, a login screen's) is not this user's to paste from, and is left.
public struct X11Pasteboard: PasteboardBackend {
    public let name = "X11"
    let environment: [String: String]
    /// Where local displays keep their sockets (`X0`, `X1`, …).
    public var socketDirectory = "/tmp/.X11-unix"

    public init(environment: [String: String]) { self.environment = environment }

    static let selections = ["clipboard", "primary", "secondary"]
    /// A helper that has not answered by then is not waited for: a display that hangs must
    /// not hold the begin for long.
    static let deadline = 3.0
    /// Clearings of a selection that comes straight back before it counts as taken back.
    static let attempts = 3
    /// Seconds after which no further display is tried.
    static let budget = 6.0
    /// Microseconds between a display's clearing and its reading back.
    static let settle: UInt32 = 150_000

    public func clear() -> PasteboardOutcome {
        let named = environment["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        let all = displays()
        guard let first = all.first else { return .notPresent }
        guard let tool = Tool.find(environment) else {
            return .failed(named != nil ? "DISPLAY is set but neither xsel nor xclip is installed"
                                        : "an X display runs here (\(first)) but neither xsel nor xclip is installed")
        }
        let xprop = ProcessRunner.which("xprop", environment: environment)
        var cleared: [String] = [], failures: [String] = []
        // Displays that do not answer each take a deadline: past the budget the rest are said
        // to be unchecked (a folder of made-up displays must not hold a begin for minutes).
        let started = Date()
        for (index, display) in all.enumerated() {
            if Date().timeIntervalSince(started) > Self.budget {
                failures.append("\(all.count - index) X display(s) not checked: the others took more than \(Int(Self.budget)) s")
                break
            }
            switch clearWithAnyCookie(display, tool: tool, xprop: xprop, until: started.addingTimeInterval(Self.budget)) {
            case .cleared: cleared.append(display)
            // A display this user's cookies do not open is another user's, unless its server
            // runs as this user (then the student has shut Carrel out of their own desktop).
            case let .unreachable(why):
                if display == named || Self.ownedByThisUser(display) { failures.append(why) }
            case let .failed(why): failures.append(why)
            }
        }
        if !failures.isEmpty { return .failed(failures.joined(separator: "; ")) }
        guard !cleared.isEmpty else { return .notPresent }
        let what = xprop == nil
            ? "CLIPBOARD, PRIMARY and SECONDARY (cut buffers not checked: xprop, from x11-utils, is not installed)"
            : "CLIPBOARD, PRIMARY, SECONDARY and the cut buffers"
        return .cleared(cleared == [named] ? what : "\(what) on \(cleared.joined(separator: ", "))")
    }

    /// The display opened with the session's cookies, else with the user's own (their home
    /// folder's as the system knows it, and a desktop's run-time one): HOME and XAUTHORITY
    /// are the student's to set, and pointing them elsewhere must not make a display look
    /// closed to this user.
    func clearWithAnyCookie(_ display: String, tool: Tool, xprop: String?, until deadline: Date) -> DisplayResult {
        let first = clear(display, tool: tool, xprop: xprop, environment: environment, until: deadline)
        guard case .unreachable = first else { return first }
        for cookies in Self.ownCookies() where cookies != environment["XAUTHORITY"] {
            var environment = environment
            environment["XAUTHORITY"] = cookies
            if let home = Self.ownHome() { environment["HOME"] = home }
            let again = clear(display, tool: tool, xprop: xprop, environment: environment, until: deadline)
            if case .unreachable = again { continue }
            return again
        }
        return first
    }

    /// This user's home folder as the password database says (not $HOME).
    static func ownHome() -> String? {
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else { return nil }
        return String(cString: dir)
    }

    /// The cookie files a desktop session of this user keeps, those that exist.
    static func ownCookies() -> [String] {
        var files: [String] = []
        if let home = ownHome() { files.append(home + "/.Xauthority") }
        files.append("/run/user/\(getuid())/gdm/Xauthority")
        return files.filter { access($0, R_OK) == 0 }
    }

    enum DisplayResult: Equatable {
        case cleared
        case unreachable(String)
        case failed(String)
    }

    /// One display: its selections cleared and read back, its cut buffers removed.
    func clear(_ display: String, tool: Tool, xprop: String?, environment: [String: String], until deadline: Date) -> DisplayResult {
        // However slowly a display answers, it has the clearing's budget at most.
        let late = DisplayResult.failed("display \(display) was not cleared within \(Int(Self.budget)) s")
        var environment = environment
        environment["DISPLAY"] = display
        if environment["HOME"] == nil { environment["HOME"] = Self.ownHome() }
        for selection in Self.selections {
            if Date() > deadline { return late }
            let r = tool.clear(selection, environment)
            guard r.status == 0 else {
                let why = ProcessRunner.Output.why(tool.name, r, display: display)
                // The first answer says whether this user can open the display at all.
                return selection == Self.selections[0] && r.started && !r.timedOut ? .unreachable(why) : .failed(why)
            }
        }
        if let xprop, let why = Self.removeCutBuffers(xprop, environment, until: deadline) { return .failed(why) }
        // A moment for a program that takes a selection back when it loses it (a loop of
        // `xclip -quiet`, a clipboard keeper) to do so, before each is read back.
        usleep(Self.settle)
        if let xprop {
            var attempt = 1
            while let set = Self.cutBuffersSet(xprop, environment), !set.isEmpty {
                if Date() > deadline { return late }
                if attempt == Self.attempts {
                    return .failed("\(set.joined(separator: ", ")) on display \(display) set again as soon as removed: another program keeps setting it")
                }
                attempt += 1
                _ = Self.removeCutBuffers(xprop, environment, until: deadline)
                usleep(Self.settle)
            }
        }
        for selection in Self.selections {
            var attempt = 1
            while true {
                if Date() > deadline { return late }
                let held = tool.read(selection, environment)
                if held.timedOut { return .failed("\(selection.uppercased()) on display \(display) could not be read back: its owner did not answer") }
                if held.output.isEmpty { break }
                if attempt == Self.attempts {
                    return .failed("\(selection.uppercased()) on display \(display) holds text again as soon as it is cleared: another program keeps taking it back")
                }
                attempt += 1
                _ = tool.clear(selection, environment)
                usleep(Self.settle)
            }
        }
        return .cleared
    }

    /// The helper that clears and reads selections: xsel, else xclip. With xsel, xclip (when
    /// installed) also asks a cleared selection what it offers: xsel leaves it with no owner,
    /// and an owner that offers only what xsel does not ask for (COMPOUND_TEXT, as xterm asks)
    /// still answers that.
    enum Tool {
        case xsel(String, targets: String?)
        case xclip(String)

        static func find(_ environment: [String: String]) -> Tool? {
            if let path = ProcessRunner.which("xsel", environment: environment) {
                return .xsel(path, targets: ProcessRunner.which("xclip", environment: environment))
            }
            if let path = ProcessRunner.which("xclip", environment: environment) { return .xclip(path) }
            return nil
        }

        var name: String {
            switch self {
            case .xsel: return "xsel"
            case .xclip: return "xclip"
            }
        }

        func clear(_ selection: String, _ environment: [String: String]) -> ProcessRunner.Output {
            switch self {
            case let .xsel(path, _):
                return ProcessRunner.run(path, ["--\(selection)", "--clear"], environment: environment, timeout: X11Pasteboard.deadline)
            case let .xclip(path):
                return ProcessRunner.run(path, ["-selection", selection, "-i"], input: "", environment: environment,
                                         timeout: X11Pasteboard.deadline)
            }
        }

        /// What the selection holds now (empty when nothing: xclip fails when no one owns it).
        func read(_ selection: String, _ environment: [String: String]) -> ProcessRunner.Output {
            var r: ProcessRunner.Output
            switch self {
            case let .xsel(path, targets):
                r = ProcessRunner.run(path, ["--\(selection)", "--output"], environment: environment, timeout: X11Pasteboard.deadline)
                if r.status == 0, r.output.isEmpty, let targets {
                    // Owned at all after xsel cleared it: someone took it back.
                    r = ProcessRunner.run(targets, ["-selection", selection, "-o", "-t", "TARGETS"], environment: environment,
                                          timeout: X11Pasteboard.deadline)
                }
            case let .xclip(path):
                r = ProcessRunner.run(path, ["-selection", selection, "-o"], environment: environment, timeout: X11Pasteboard.deadline)
            }
            if r.status != 0 { r.output = "" }
            return r
        }
    }
}
