#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import CAssessmentd
import ModeService

// carrel-assessmentd: assessment mode for the whole lab machine. Run as root by its systemd
// unit, in the foreground, logging to stderr:
//   carrel-assessmentd --socket /run/carrel/assessmentd.sock --carrel /usr/bin/carrel [--state DIR]
//                      [--store HOST:PORT]...
// --store names the lab's store (once for each): `network: store-only` then lets the seat
// reach those and nothing else, whatever store a session names (a student who types the
// command could name any host). Without it, the store the session names is let through.
// It serves the trusted Carrel (path and SHA-256, measured at start) run by a student account
// over a Unix socket (JSON lines, ModeWire), one mode at a time; what it changes is written to
// DIR/state.json before each change, and reverted at its next start if it was left there.
// SIGTERM, SIGINT and SIGHUP put the machine back and exit 0.

struct Options {
    var socket = ModeWire.defaultSocket
    var carrel = "/usr/bin/carrel"
    var state = "/var/lib/carrel-assessmentd"
    var stores: [Endpoint] = []

    init(_ arguments: [String]) throws(ChangeError) {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--store" {
                guard let value = rest.popFirst(), let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
                      (1...65535).contains(port), !value[..<colon].isEmpty, stores.count < 16 else {
                    throw ChangeError("--store needs HOST:PORT (at most 16 of them)")
                }
                let host = value[..<colon].filter { $0 != "[" && $0 != "]" }
                stores.append(Endpoint(host: String(host), port: port))
                continue
            }
            guard ["--socket", "--carrel", "--state"].contains(flag) else {
                throw ChangeError("unknown argument \(flag); usage: carrel-assessmentd [--socket PATH] [--carrel PATH] [--state DIR] [--store HOST:PORT]...")
            }
            guard let value = rest.popFirst(), value.hasPrefix("/") else { throw ChangeError("\(flag) needs an absolute path") }
            switch flag {
            case "--socket": socket = value
            case "--carrel": carrel = value
            default: state = value
            }
        }
    }
}

/// The socket, mode 0666 (students connect) in a folder of root's that only root may write;
/// a socket left from before is removed, anything else in its place is refused.
func listenSocket(_ path: String) throws(ChangeError) -> Int32 {
    let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    if !folder.isEmpty && mkdir(folder, 0o755) != 0 && errno != EEXIST { throw ChangeError("\(folder) cannot be created: \(Files.error())") }
    var st = stat()
    guard lstat(folder.isEmpty ? "/" : folder, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR, st.st_uid == 0, st.st_mode & 0o022 == 0 else {
        throw ChangeError("\(folder) must be a folder of root's that only root may write")
    }
    if lstat(path, &st) == 0 {
        guard (st.st_mode & S_IFMT) == S_IFSOCK else { throw ChangeError("\(path) exists and is not a socket") }
        unlink(path)
    }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw ChangeError("\(path) is too long for a socket") }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, byte) in bytes.enumerated() { raw[i] = byte }
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { throw ChangeError("no socket: \(Files.error())") }
    let mask = umask(0o111)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    umask(mask)
    guard bound == 0, listen(fd, 32) == 0 else {
        let why = Files.error()
        close(fd)
        throw ChangeError("\(path) cannot be listened on: \(why)")
    }
    return fd
}

/// The changes only this service ever makes, undone when its record cannot be read.
let sweep = [
    AppliedChange(change: .nftables(table: ModePlan.table, ruleset: ""), step: .network, before: .nothing),
    AppliedChange(change: .file(path: ModePlan.nologin, contents: ""), step: .logins, before: .nothing),
    AppliedChange(change: .file(path: ModePlan.modprobeBlock, contents: ""), step: .devices, before: .nothing),
]

func start() throws(ChangeError) {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    guard geteuid() == 0 else { throw ChangeError("assessment mode changes the whole machine: run the service as root") }
    _ = signal(SIGPIPE, SIG_IGN)
    let signals = cad_stop_signals()
    guard signals >= 0 else { throw ChangeError("the stop signals cannot be watched: \(Files.error())") }
    let store = FileModeStore(folder: options.state)
    try store.prepare()
    let executor = SystemExecutor()
    let engine = ModeEngine(executor: executor, store: store, log: log)
    // The machine is put back first, whatever else fails to start.
    if let restored = engine.restore(sweep: sweep) { log("restored at start: \(restored)") }
    let trusted = try TrustedCarrel(options.carrel)
    let listener = try listenSocket(options.socket)
    log("serving \(trusted.path) on \(options.socket) (state in \(options.state))")
    let server = Server(listener: listener, signals: signals, trusted: trusted, executor: executor, engine: engine)
    server.stores = options.stores
    if !options.stores.isEmpty { log("the lab's store: \(options.stores.map(\.description).joined(separator: ", "))") }
    server.run()
    close(listener)
    unlink(options.socket)
    log("stopped; the machine is as it was")
}

do throws(ChangeError) {
    try start()
    exit(0)
} catch {
    log(error.reason)
    exit(1)
}
