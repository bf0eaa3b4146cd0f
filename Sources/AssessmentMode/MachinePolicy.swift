/// What assessment mode does to the whole lab machine while a session runs, as a test's
/// policy says it (docs/format.md, "Assessment mode"): each restriction a step the service
/// `carrel-assessmentd` performs on begin and reverts on end. Every key has a default; a key
/// left out is nil here, so that tests written before these keys keep their fingerprints.
public struct MachinePolicy: Sendable, Hashable, Codable {
    /// Whether a session must have assessment mode: `lock` (begin fails without the service,
    /// exit 69), `prefer` (used when the service is there: the default) or `off` (never asked).
    public enum Machine: String, Sendable, Hashable, Codable, CaseIterable { case lock, prefer, off }
    /// The seat account's network: the lab's store and name resolution only, all of it, or none.
    public enum Network: String, Sendable, Hashable, Codable, CaseIterable {
        case storeOnly = "store-only", allow, none
    }
    /// New logins (console, SSH, su) of the seat's account and every non-administrator account.
    public enum Logins: String, Sendable, Hashable, Codable, CaseIterable { case refuse, allow }
    /// Login sessions that already exist when the mode begins: reported, stopped until the end
    /// (`lock`), or ended.
    public enum Sessions: String, Sendable, Hashable, Codable, CaseIterable { case report, lock, end }
    /// Switching virtual consoles, SysRq and Ctrl-Alt-Del.
    public enum Consoles: String, Sendable, Hashable, Codable, CaseIterable { case lock, allow }
    /// USB mass storage.
    public enum Devices: String, Sendable, Hashable, Codable, CaseIterable { case block, allow }
    /// A process of the seat's account that is not Carrel or its ancestors.
    public enum Processes: String, Sendable, Hashable, Codable, CaseIterable { case report, end, ignore }

    public var machine: Machine?
    public var network: Network?
    public var logins: Logins?
    public var sessions: Sessions?
    public var consoles: Consoles?
    public var devices: Devices?
    public var processes: Processes?

    public init(machine: Machine? = nil, network: Network? = nil, logins: Logins? = nil, sessions: Sessions? = nil,
                consoles: Consoles? = nil, devices: Devices? = nil, processes: Processes? = nil) {
        self.machine = machine
        self.network = network
        self.logins = logins
        self.sessions = sessions
        self.consoles = consoles
        self.devices = devices
        self.processes = processes
    }

    /// The keys of the file format, in the order they are shown.
    public static let keys = ["machine", "network", "logins", "sessions", "consoles", "devices", "processes"]

    public var machineMode: Machine { machine ?? .prefer }
    public var networkRule: Network { network ?? .storeOnly }
    public var loginRule: Logins { logins ?? .refuse }
    public var sessionRule: Sessions { sessions ?? .report }
    public var consoleRule: Consoles { consoles ?? .lock }
    public var deviceRule: Devices { devices ?? .block }
    public var processRule: Processes { processes ?? .report }

    /// Each key with its value (the default where the test says nothing) and what it means.
    public var summary: [(key: String, value: String, meaning: String)] {
        [
            ("machine", machineMode.rawValue, [
                .lock: "the session begins only with assessment mode locking this machine",
                .prefer: "assessment mode locks this machine when its service is installed",
                .off: "this machine is not locked beyond Carrel's own terminal",
            ][machineMode] ?? ""),
            ("network", networkRule.rawValue, [
                .storeOnly: "the seat's account reaches the lab's store and nothing else",
                .allow: "the network is not limited", .none: "the seat's account reaches no network",
            ][networkRule] ?? ""),
            ("logins", loginRule.rawValue, loginRule == .refuse ? "no new login of a student account (console, SSH, su)" : "logins are not limited"),
            ("sessions", sessionRule.rawValue, [
                .report: "other logins already open are reported", .lock: "other logins already open are stopped until the end",
                .end: "other logins already open are ended",
            ][sessionRule] ?? ""),
            ("consoles", consoleRule.rawValue, consoleRule == .lock ? "no switching virtual consoles; SysRq and Ctrl-Alt-Del off" : "consoles are not locked"),
            ("devices", deviceRule.rawValue, deviceRule == .block ? "USB storage is not mounted; a device plugged in is reported" : "devices are not limited"),
            ("processes", processRule.rawValue, [
                .report: "another program of the seat's account is reported", .end: "another program of the seat's account is ended",
                .ignore: "other programs are not watched",
            ][processRule] ?? ""),
        ]
    }
}
