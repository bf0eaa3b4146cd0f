#if canImport(Glibc)
import Glibc
#endif
import CKeysign
import Crypto
import MachineSeal

// carrel-keysign: the seat's launcher on an enrolled machine (docs/security-model.md,
// "Enrolled machines"). Installed setuid root next to carrel; the key is root's alone.
// `carrel-keysign ARGUMENTS…` checks the enrolled Carrel, starts it with ARGUMENTS as the
// user who ran the helper, and signs seat announcements for that child alone (and tells it
// the machine's own store login, derived from the key), over a socket only the child holds. It serves no other process: not its parent, not whoever writes to
// its standard input. Exit: the child's status; 2 when refused (why on standard error).

/// Where enrolment keeps the machine's files. A test may name another folder with
/// CARREL_MACHINE_DIR, which a setuid run ignores.
let folder: String = {
    let setuid = getuid() != geteuid() || getgid() != getegid()
    if !setuid, let named = getenv("CARREL_MACHINE_DIR").map({ String(cString: $0) }), named.hasPrefix("/") { return named }
    return "/etc/carrel"
}()

/// The enrolment and the key, read as root before anything is started.
func enrolment() throws(Refusal) -> (MachineConfig, Curve25519.Signing.PrivateKey) {
    let configBytes = try RootFiles.read(folder + "/machine.conf", secret: false)
    guard let config = MachineConfig.parse(String(decoding: configBytes, as: UTF8.self)) else {
        throw Refusal(why: "\(folder)/machine.conf cannot be read (enrol again)")
    }
    let keyBytes = try RootFiles.read(folder + "/machine-key", secret: true, limit: 200)
    guard let key = MachineKey.privateKey(fileText: String(decoding: keyBytes, as: UTF8.self)),
          MachineKey.publicHex(key) == config.publicKey else {
        throw Refusal(why: "\(folder)/machine-key is not the key enrolled (enrol again)")
    }
    return (config, key)
}

/// Starts the enrolled Carrel with `arguments` as the real user: its pid and the helper's
/// end of the socket only it holds.
func launch(_ config: MachineConfig, _ arguments: [String]) throws(Refusal) -> Child {
    let exe = try Executable.open(config)
    defer { close(exe) }
    var pair: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
        throw Refusal(why: "no socket for Carrel")
    }
    var inherited: [String] = []
    var entry = environ
    while let pointer = entry.pointee {
        inherited.append(String(cString: pointer))
        entry += 1
    }
    let argv: [UnsafeMutablePointer<CChar>?] = ([config.carrel] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = Executable.environment(inherited).map { strdup($0) } + [nil]
    defer { for p in argv + envp { free(p) } }
    let pid = ckeysign_launch(exe, pair[1], getuid(), getgid(), argv, envp)
    close(pair[1])
    guard pid > 0 else {
        close(pair[0])
        throw Refusal(why: "Carrel could not be started")
    }
    // The terminal's signals are the child's to handle; the helper lives as long as it does.
    for signal in [SIGINT, SIGQUIT, SIGTSTP, SIGHUP, SIGPIPE, SIGTTOU, SIGTTIN] { _ = Glibc.signal(signal, SIG_IGN) }
    return Child(pid: pid, socket: pair[0])
}

/// Answers the child's requests until it closes its end (it has ended): a statement to sign,
/// or the machine's store login (`StoreLogin.request`), each only while the child is fit.
func serve(_ child: Child, ready: Bool, config: MachineConfig, key: Curve25519.Signing.PrivateKey) {
    guard SealWire.write(child.socket, ready ? "ready" : "refused Carrel was not started as the helper starts it") else { return }
    while let message = SealWire.read(child.socket) {
        let answer: String
        if !ready {
            answer = "refused Carrel was not started as the helper starts it"
        } else if let why = child.unfit() {
            answer = "refused " + why
        } else if message == StoreLogin.request {
            // The machine's own store login, for this child alone (the checks above are the
            // signature's): the role named from the machine, its password derived from the key.
            let role = StoreLogin.role(machine: config.name)
            answer = StoreLogin.answer(role: role, password: StoreLogin.password(key: key, role: role))
        } else if let statement = SealRequest.parse(message + "\n")?.statement(machine: config, at: Int64(time(nil))),
                  let signature = MachineKey.sign(statement, with: key) {
            answer = "signed \(signature)\n" + statement.text
        } else {
            answer = "refused the request is not one this helper signs"
        }
        guard SealWire.write(child.socket, answer) else { return }
    }
}

/// Writes `text` whole to descriptor `fd`.
func say(_ text: String, to fd: Int32) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        bytes = bytes.dropFirst(n)
    }
}

do throws(Refusal) {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard !arguments.isEmpty else {
        throw Refusal(why: "give the Carrel command to run (carrel starts its helper itself on an enrolled machine)")
    }
    let (config, key) = try enrolment()
    let child = try launch(config, arguments)
    let ready = child.start()
    serve(child, ready: ready, config: config, key: key)
    close(child.socket)
    var status: Int32 = child.ended ?? 0
    while child.ended == nil && waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
    exit(status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f))
} catch {
    say("carrel-keysign: refused: \(error.why)\n", to: 2)
    exit(2)
}
