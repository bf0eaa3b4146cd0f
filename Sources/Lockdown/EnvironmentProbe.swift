#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AssessmentKit
import Foundation

/// What the environment looks like to the restriction policy.
public struct EnvironmentFacts: Sendable, Equatable {
    /// "tmux" or "screen" (how it was recognised), nil when not inside one.
    public var multiplexer: String?
    /// The injection variables that are set, by name (the first, cheap line).
    public var injectedLibraries: [String]
    /// Code mapped into the process that the executable does not need (`LoadedCode`):
    /// what a preloaded library or audit module leaves even after unsetting its variable.
    public var injectedObjects: [String]
    /// The pid of an attached tracer (debugger, strace), or nil.
    public var tracerPid: Int?
    public var ssh: Bool
    public var term: String?
    public var utf8Locale: Bool

    public init(multiplexer: String? = nil, injectedLibraries: [String] = [], injectedObjects: [String] = [],
                tracerPid: Int? = nil, ssh: Bool = false, term: String? = "xterm-256color", utf8Locale: Bool = true) {
        self.multiplexer = multiplexer
        self.injectedLibraries = injectedLibraries
        self.injectedObjects = injectedObjects
        self.tracerPid = tracerPid
        self.ssh = ssh
        self.term = term
        self.utf8Locale = utf8Locale
    }
}

/// Reads the facts from environment variables and /proc.
public enum EnvironmentProbe {
    /// The facts for `pid`; the mapped code is only examined for this process itself.
    public static func probe(environment: [String: String], pid: Int32 = getpid()) -> EnvironmentFacts {
        EnvironmentFacts(
            multiplexer: multiplexer(environment: environment, pid: pid),
            injectedLibraries: ["LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES"].filter { !(environment[$0] ?? "").isEmpty },
            injectedObjects: pid == getpid() ? LoadedCode.injected() ?? [] : [],
            tracerPid: TracerWatch.tracerPid(of: pid),
            ssh: ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"].contains { !(environment[$0] ?? "").isEmpty },
            term: environment["TERM"],
            utf8Locale: utf8(environment))
    }

    static func multiplexer(environment: [String: String], pid: Int32) -> String? {
        if !(environment["TMUX"] ?? "").isEmpty { return "tmux ($TMUX is set)" }
        if !(environment["STY"] ?? "").isEmpty { return "screen ($STY is set)" }
        // Variables can be unset; the parent processes cannot.
        var current = pid
        for _ in 0..<32 {
            guard let (name, parent) = processInfo(current) else { break }
            // The multiplexer's server is daemonised (its parent is init): look before stopping.
            if current != pid, name.hasPrefix("tmux") { return "tmux (parent process)" }
            if current != pid, name == "screen" || name == "SCREEN" { return "screen (parent process)" }
            guard parent > 1 else { break }
            current = parent
        }
        // Names can be changed; what holds our terminal cannot hide what it does.
        return TerminalMultiplexer.detect(pid: pid)
    }

    /// Command name and parent pid from /proc/PID/stat.
    static func processInfo(_ pid: Int32) -> (String, Int32)? {
        guard let data = SecureFiles.readSmallFile("/proc/\(pid)/stat", limit: 4096) else { return nil }
        // As bytes: "PID (NAME) STATE PPID …", the name holding any byte, ")" included.
        let bytes = [UInt8](data)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")), let close = bytes.lastIndex(of: UInt8(ascii: ")")),
              open < close else { return nil }
        let name = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
        let rest = bytes[(close + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 3)
        guard rest.count > 2, let parent = Int32(String(decoding: rest[1], as: UTF8.self)) else { return nil }
        return (name, parent)
    }

    static func utf8(_ environment: [String: String]) -> Bool {
        let locale = [environment["LC_ALL"], environment["LC_CTYPE"], environment["LANG"]]
            .compactMap { $0 }.first { !$0.isEmpty } ?? ""
        let lowered = locale.lowercased()
        return lowered.contains("utf-8") || lowered.contains("utf8")
    }
}

/// A reason the policy refuses to begin, with the way a proctor can relax it.
public struct PreflightRefusal: Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public var remedy: String
    public var description: String { "\(reason); \(remedy)" }
}

/// The policy's verdict over the environment facts (pure).
public enum Preflight {
    public static func refusals(_ facts: EnvironmentFacts, policy: RestrictionPolicy, needsTerminal: Bool) -> [PreflightRefusal] {
        var out: [PreflightRefusal] = []
        if let mux = facts.multiplexer, policy.multiplexer == .refuse {
            out.append(PreflightRefusal(
                reason: "running inside a terminal multiplexer: \(mux); another pane would be another app",
                remedy: "start Carrel outside tmux/screen, or set `policy: { multiplexer: allow }` in the assessment"))
        }
        if !facts.injectedLibraries.isEmpty, policy.extensions == .refuse {
            out.append(PreflightRefusal(
                reason: "\(facts.injectedLibraries.joined(separator: ", ")) is set, which injects code into Carrel",
                remedy: "unset it, or set `policy: { extensions: allow }` in the assessment"))
        }
        if !facts.injectedObjects.isEmpty, policy.extensions == .refuse {
            out.append(PreflightRefusal(
                reason: "code that Carrel does not load is mapped into it: \(facts.injectedObjects.joined(separator: ", ")) (injected through LD_PRELOAD, LD_AUDIT or LD_LIBRARY_PATH, even if the variable was unset since)",
                remedy: "start Carrel from a clean login shell without those variables, or set `policy: { extensions: allow }` in the assessment"))
        }
        if let tracer = facts.tracerPid, policy.extensions == .refuse {
            out.append(PreflightRefusal(
                reason: "a tracer (pid \(tracer)) is attached to Carrel",
                remedy: "detach the debugger or strace, or set `policy: { extensions: allow }` in the assessment"))
        }
        if facts.ssh, policy.remote == .refuse {
            out.append(PreflightRefusal(
                reason: "this is an SSH session and the assessment requires a local console",
                remedy: "sit the test at the machine itself, or set `policy: { remote: allow }` in the assessment"))
        }
        if needsTerminal {
            let term = facts.term ?? ""
            if term.isEmpty || term == "dumb" || term == "unknown" {
                out.append(PreflightRefusal(
                    reason: "the terminal is too limited (TERM is \(term.isEmpty ? "unset" : term))",
                    remedy: "use a terminal that sets TERM, such as xterm-256color or linux"))
            }
        }
        return out
    }
}
