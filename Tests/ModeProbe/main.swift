#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode

// carrel-mode-probe SOCKET: for the service's root tests only. Connects to the assessment-mode
// service, sends each line of its stdin as it comes, prints each line the service sends; exits
// when either side closes. The tests start carrel-assessmentd with `--carrel` naming this
// program, so it stands where the installed Carrel stands in production (/usr/bin/carrel).
// A line `!run PROGRAM ARGUMENT…` is not sent: the probe runs the program as a child of its
// own and does not wait for it, as Carrel runs its clipboard helpers.


let arguments = CommandLine.arguments
let path = arguments.count > 1 ? arguments[1] : ModeWire.socketPath([:])
var address = sockaddr_un()
address.sun_family = sa_family_t(AF_UNIX)
let bytes = Array(path.utf8)
guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
    _ = Descriptor.writeAll(2, Array("probe: socket path too long\n".utf8))
    exit(2)
}
withUnsafeMutableBytes(of: &address.sun_path) { raw in
    for (i, byte) in bytes.enumerated() { raw[i] = byte }
}
let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
}
guard fd >= 0, connected == 0 else {
    _ = Descriptor.writeAll(2, Array("probe: cannot connect to \(path)\n".utf8))
    exit(2)
}
_ = signal(SIGPIPE, SIG_IGN)
// The children `!run` starts are reaped by the kernel.
_ = signal(SIGCHLD, SIG_IGN)

/// Runs `line`'s words (after `!run `) as a child, without waiting.
func run(_ line: String) {
    let words = line.dropFirst(5).split(separator: " ").map(String.init)
    guard let program = words.first else { return }
    var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    var pid = pid_t()
    _ = posix_spawn(&pid, program, nil, nil, &argv, environ)
    for pointer in argv { free(pointer) }
}
var chunk = [UInt8](repeating: 0, count: 65536)
while true {
    var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0), pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
    if poll(&fds, 2, -1) < 0 { if errno == EINTR { continue } else { exit(1) } }
    if fds[1].revents != 0 {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { exit(0) }
        guard Descriptor.writeAll(1, Array(chunk[0..<n])) else { exit(1) }
    }
    if fds[0].revents != 0 {
        let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n <= 0 { exit(0) }
        // Each `!run` line is run; every other line goes to the service as it came.
        var forward: [UInt8] = []
        for line in chunk[0..<n].split(separator: 10, omittingEmptySubsequences: false).dropLast(chunk[n - 1] == 10 ? 1 : 0) {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("!run ") { run(text) } else { forward += Array(line) + [10] }
        }
        if chunk[n - 1] != 10, !forward.isEmpty { forward.removeLast() }
        guard Descriptor.writeAll(fd, forward) else { exit(1) }
    }
}
