#if canImport(Glibc)
import Glibc
#endif
import MachineSeal

// carrel-keysign: signs one seat's announcement with this machine's key, for the enrolled
// Carrel only (docs/security-model.md, "Enrolled machines"). Installed setuid root next to
// carrel; the key is root's alone. It reads a `SealRequest` on standard input, checks its
// caller, reads the key, gives up root, and prints the signature's hex on the first line and
// the statement signed after it. Exit 2: refused (why on standard error); 0: signed.

/// Where enrolment keeps the machine's files. A test may name another folder with
/// CARREL_MACHINE_DIR, which a setuid run ignores.
let folder: String = {
    let setuid = getuid() != geteuid() || getgid() != getegid()
    if !setuid, let named = getenv("CARREL_MACHINE_DIR").map({ String(cString: $0) }), named.hasPrefix("/") { return named }
    return "/etc/carrel"
}()

/// Gives up root for good (the real user's ids, both real and effective).
func dropPrivileges() throws(Refusal) {
    let uid = getuid()
    let gid = getgid()
    if geteuid() == 0 && uid != 0 { _ = setgroups(0, nil) }
    guard setgid(gid) == 0, setuid(uid) == 0, geteuid() == uid, getegid() == gid else {
        throw Refusal(why: "could not give up root")
    }
    if uid != 0 && setuid(0) == 0 { throw Refusal(why: "root could be taken back") }
}

func sign() throws(Refusal) -> String {
    let input = try RootFiles.readAll(0, limit: 2048, what: "the request")
    guard let request = SealRequest.parse(String(decoding: input, as: UTF8.self)) else {
        throw Refusal(why: "the request is not one this helper signs")
    }
    let configBytes = try RootFiles.read(folder + "/machine.conf", secret: false)
    guard let config = MachineConfig.parse(String(decoding: configBytes, as: UTF8.self)) else {
        throw Refusal(why: "\(folder)/machine.conf cannot be read (enrol again)")
    }
    let caller = try Caller.check(config)
    let keyBytes = try RootFiles.read(folder + "/machine-key", secret: true, limit: 200)
    try dropPrivileges()
    guard let key = MachineKey.privateKey(fileText: String(decoding: keyBytes, as: UTF8.self)),
          MachineKey.publicHex(key) == config.publicKey else {
        throw Refusal(why: "\(folder)/machine-key is not the key enrolled (enrol again)")
    }
    let statement = request.statement(machine: config, at: Int64(time(nil)))
    guard getppid() == caller, let signature = MachineKey.sign(statement, with: key) else {
        throw Refusal(why: "nothing was signed")
    }
    return signature + "\n" + statement.text + "\n"
}

/// Writes `text` whole to descriptor `fd`.
func say(_ text: String, to fd: Int32) -> Bool {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return false }
        bytes = bytes.dropFirst(n)
    }
    return true
}

do {
    exit(say(try sign(), to: 1) ? 0 : 1)
} catch {
    _ = say("carrel-keysign: refused: \(error.why)\n", to: 2)
    exit(2)
}
