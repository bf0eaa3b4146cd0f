/// One change assessment mode makes to the machine, as a value: the service performs it on
/// begin, writes down what it did (and what was there before) before going on, and reverts
/// every change in reverse order on end, on failure, and at its own start after a crash.
public enum Change: Sendable, Hashable, Codable {
    /// An nftables table (`nft -f` of `ruleset`); reverted by deleting the table.
    case nftables(table: String, ruleset: String)
    /// A file written whole (mode 0644, never through a symlink); reverted by removing it, or
    /// by putting back what was there.
    case file(path: String, contents: String)
    /// A kernel setting under /proc/sys; reverted to the value it had.
    case sysctl(path: String, value: String)
    /// VT_LOCKSWITCH on the virtual consoles; reverted by VT_UNLOCKSWITCH.
    case lockConsoleSwitch
    /// A systemd unit masked for this boot only (`systemctl mask --runtime`); reverted by unmasking.
    case maskUnit(String)
}

/// A step of the mode: its kind, the changes that make it, and whether the session cannot do
/// without it (`machine: lock`) or it is reported when this machine cannot apply it.
public struct PlannedStep: Sendable, Hashable, Codable {
    public var kind: StepKind
    public var changes: [Change]
    /// What the step does, in words, for the journal and the integrity report.
    public var detail: String
    public var required: Bool

    public init(kind: StepKind, changes: [Change], detail: String, required: Bool) {
        self.kind = kind
        self.changes = changes
        self.detail = detail
        self.required = required
    }
}

/// The steps for a policy, a seat account and the addresses its store resolved to: pure, so
/// that every rule is tested without root.
public enum ModePlan {
    public static let table = "carrel_assessment"
    /// The file the package's PAM piece (pam_nologin) looks for: while it exists, only root and
    /// administrators log in.
    public static let nologin = "/run/carrel/nologin"
    public static let modprobeBlock = "/etc/modprobe.d/carrel-assessment.conf"
    /// Whether a program may push characters into a terminal's input (TIOCSTI) that is not
    /// its own session's: 0 refuses it (Linux 6.2 and later; older kernels always allow it).
    public static let tiocsti = "/proc/sys/dev/tty/legacy_tiocsti"

    public struct Resolved: Sendable, Equatable {
        /// The store's addresses (IPv4 or IPv6) and ports.
        public var store: [(address: String, port: Int)]
        /// The name servers of /etc/resolv.conf.
        public var nameServers: [String]

        public init(store: [(address: String, port: Int)], nameServers: [String]) {
            self.store = store
            self.nameServers = nameServers
        }

        public static func == (a: Resolved, b: Resolved) -> Bool {
            a.store.map { "\($0.address) \($0.port)" } == b.store.map { "\($0.address) \($0.port)" } && a.nameServers == b.nameServers
        }
    }

    public static func steps(_ policy: MachinePolicy, uid: UInt32, account: String, resolved: Resolved, nologin: String = nologin) -> [PlannedStep] {
        let required = policy.machineMode == .lock
        var steps: [PlannedStep] = []
        switch policy.networkRule {
        case .allow: break
        case .storeOnly, .none:
            // No store (a session on its own) or `none`: no name server either, so that name
            // resolution cannot carry anything out.
            let nothing = policy.networkRule == .none || resolved.store.isEmpty
            let ruleset = nftables(uid: uid, resolved: nothing ? Resolved(store: [], nameServers: []) : resolved)
            let reach = nothing
                ? "reaches no network"
                : "reaches " + resolved.store.map { Endpoint(host: $0.address, port: $0.port).description }.joined(separator: ", ")
                    + (resolved.nameServers.isEmpty ? "" : " and its name servers") + " only"
            steps.append(PlannedStep(kind: .network, changes: [.nftables(table: table, ruleset: ruleset)],
                                     detail: "\(account) (uid \(uid)) \(reach)", required: required))
        }
        if policy.loginRule == .refuse {
            let words = "Assessment mode: a Carrel session runs on this machine; only administrators may log in until it ends.\n"
            steps.append(PlannedStep(kind: .logins, changes: [.file(path: nologin, contents: words)],
                                     detail: "no new login of a student account (console, SSH, su)", required: required))
        }
        if policy.consoleRule == .lock {
            steps.append(PlannedStep(kind: .consoles, changes: [.lockConsoleSwitch, .sysctl(path: "/proc/sys/kernel/sysrq", value: "0"),
                                                               .maskUnit("ctrl-alt-del.target")],
                                     detail: "virtual console switching locked; SysRq and Ctrl-Alt-Del off", required: required))
        }
        if policy.deviceRule == .block {
            steps.append(PlannedStep(kind: .devices, changes: [.file(path: modprobeBlock, contents: "install usb-storage /bin/false\n")],
                                     detail: "USB storage not loaded; a device plugged in is reported", required: required))
        }
        if policy.processRule != .ignore {
            // A program of the student's that shares the exam's terminal could otherwise type
            // into it (ioctl TIOCSTI) as if the student had.
            steps.append(PlannedStep(kind: .processes, changes: [.sysctl(path: tiocsti, value: "0")],
                                     detail: "no program can type into a terminal it shares with Carrel (TIOCSTI off)", required: required))
        }
        return steps
    }

    /// The seat account's output: accepted only to the store and the name servers, refused
    /// (at once, not dropped) everywhere else; every other account untouched. The account's
    /// packets jump to a chain of their own: a refusal's reset or ICMP answer has no socket, so
    /// a rule "every other uid is accepted" would not match it and the answer itself would be
    /// refused (on loopback, a connection then hangs instead of being refused).
    public static func nftables(uid: UInt32, resolved: Resolved) -> String {
        var rules: [String] = []
        for (address, port) in resolved.store {
            rules.append("\(family(address)) daddr \(address) tcp dport \(port) accept")
        }
        for server in resolved.nameServers {
            rules.append("\(family(server)) daddr \(server) udp dport 53 accept")
            rules.append("\(family(server)) daddr \(server) tcp dport 53 accept")
        }
        rules.append("meta l4proto tcp reject with tcp reset")
        rules.append("reject")
        return """
            table inet \(table) {
            \tchain seat {
            \(rules.map { "\t\t" + $0 }.joined(separator: "\n"))
            \t}
            \tchain output {
            \t\ttype filter hook output priority filter; policy accept;
            \t\tmeta skuid \(uid) jump seat
            \t}
            }

            """
    }

    static func family(_ address: String) -> String { address.contains(":") ? "ip6" : "ip" }

    /// A plain address: IPv4 dotted or IPv6 hexadecimal with colons (nothing nft could read as
    /// more than an address).
    public static func isAddress(_ text: String) -> Bool {
        guard !text.isEmpty, text.count <= 45 else { return false }
        if text.contains(":") { return text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}
