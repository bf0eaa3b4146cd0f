#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import CAssessmentd
import Foundation
import ModeService

/// What this machine can enforce (`carrel seat check`), in words.
enum Capabilities {
    static func probe(_ executor: SystemExecutor) -> [Capability] {
        var out: [Capability] = []
        let tables = access(executor.nft, X_OK) == 0 ? Spawn.run(executor.nft, ["list", "tables"], timeout: 5) : nil
        out.append(tables.map { run in
            run.succeeded ? Capability(kind: .network, available: true, reason: "nftables works: the seat account's traffic can be limited by uid")
                : Capability(kind: .network, available: false, reason: "nft cannot use the kernel's nftables: \(SystemExecutor.firstLine(run.output))")
        } ?? Capability(kind: .network, available: false, reason: "nftables is not installed (\(executor.nft) is missing)"))
        let pam = pamPiece()
        out.append(Capability(kind: .logins, available: pam == nil, reason: pam ?? "PAM refuses student logins while \(ModePlan.nologin) exists"))
        let consoles = consoleProblems(executor)
        out.append(Capability(kind: .consoles, available: consoles.isEmpty,
                              reason: consoles.isEmpty ? "console switching, SysRq and Ctrl-Alt-Del can be locked" : consoles.joined(separator: "; ")))
        let modprobe = directory("/etc/modprobe.d")
        let usb = ProcTable.usbDevices() != nil
        out.append(Capability(kind: .devices, available: modprobe,
                              reason: (modprobe ? "USB storage can be kept from loading" : "/etc/modprobe.d is missing")
                                + (usb ? "; USB devices plugged in are reported" : "; no USB bus to watch (/sys/bus/usb is missing)")))
        let proc = opendir("/proc").map { dir -> Bool in
            closedir(dir)
            return true
        } ?? false
        let why = proc ? "/proc can be read" : "/proc cannot be read"
        out.append(Capability(kind: .sessions, available: proc, reason: proc ? "other login sessions are found in /proc" : why))
        out.append(processes(proc: proc))
        return out
    }

    /// Whether the account's other programs are seen at their start, and kept from typing into
    /// the exam's terminal.
    static func processes(proc: Bool) -> Capability {
        guard proc else { return Capability(kind: .processes, available: false, reason: "/proc cannot be read") }
        let events = cad_proc_events_open()
        let seen = events >= 0 ? "the seat account's programs are seen as they start (the kernel's process events)"
            : "the seat account's programs are seen within a quarter of a second in /proc (the kernel's process events are not available: \(Files.error()))"
        if events >= 0 { close(events) }
        var st = stat()
        guard lstat(ModePlan.tiocsti, &st) == 0 else {
            return Capability(kind: .processes, available: false,
                              reason: seen + "; but this kernel lets any program type into a terminal it shares (no \(ModePlan.tiocsti): Linux before 6.2)")
        }
        guard access(ModePlan.tiocsti, W_OK) == 0 else {
            return Capability(kind: .processes, available: false, reason: seen + "; but \(ModePlan.tiocsti) cannot be written")
        }
        return Capability(kind: .processes, available: true, reason: seen + "; typing into another program's terminal (TIOCSTI) can be turned off")
    }

    /// Why the package's PAM piece is not in force; nil when it is.
    static func pamPiece() -> String? {
        guard let bytes = try? Files.read("/etc/pam.d/common-account") else { return "/etc/pam.d/common-account cannot be read" }
        let text = String(decoding: bytes, as: UTF8.self)
        // The package's line, read by its fields: `account requisite pam_nologin.so
        // file=/run/carrel/nologin` (a comment, another control, or a file name that only begins
        // like it does not count).
        let active = text.split(separator: "\n").contains { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 4, fields[0] == "account", ["requisite", "required"].contains(fields[1]),
                  fields[2] == "pam_nologin.so" || fields[2].hasSuffix("/pam_nologin.so") else { return false }
            return fields.dropFirst(3).contains { $0 == "file=" + ModePlan.nologin }
        }
        return active ? nil : "the PAM piece is not enabled (pam-auth-update --enable carrel-assessment)"
    }

    static func consoleProblems(_ executor: SystemExecutor) -> [String] {
        var problems: [String] = []
        do {
            let fd = try SystemExecutor.console()
            close(fd)
        } catch {
            problems.append(error.reason)
        }
        if access("/proc/sys/kernel/sysrq", W_OK) != 0 { problems.append("/proc/sys/kernel/sysrq cannot be written") }
        do { try executor.systemd("ctrl-alt-del.target") } catch { problems.append(error.reason) }
        return problems
    }

    static func directory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }
}

/// The addresses a begin needs: the store's names resolved (only those given), and the name
/// servers of /etc/resolv.conf.
enum Resolver {
    static func resolve(_ store: [Endpoint]) -> Result<ModePlan.Resolved, ChangeError> {
        var pairs: [(address: String, port: Int)] = []
        for endpoint in store {
            let addresses: [String]
            if ModePlan.isAddress(endpoint.host) { addresses = [endpoint.host] } else {
                switch lookUp(endpoint.host) {
                case let .success(found): addresses = found
                case let .failure(error): return .failure(error)
                }
            }
            for address in addresses where !pairs.contains(where: { $0.address == address && $0.port == endpoint.port }) {
                pairs.append((address, endpoint.port))
            }
        }
        return .success(ModePlan.Resolved(store: Array(pairs.prefix(64)), nameServers: nameServers()))
    }

    static func lookUp(_ host: String) -> Result<[String], ChangeError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let r = getaddrinfo(host, nil, &hints, &list)
        guard r == 0 else {
            return .failure(ChangeError("the store's host \(host) cannot be resolved (\(String(cString: gai_strerror(r)))); nothing was changed"))
        }
        defer { freeaddrinfo(list) }
        var out: [String] = []
        var next = list
        while let info = next?.pointee {
            next = info.ai_next
            guard let address = info.ai_addr else { continue }
            var text = [CChar](repeating: 0, count: 64)
            if info.ai_family == AF_INET {
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { var a = $0.pointee.sin_addr; _ = inet_ntop(AF_INET, &a, &text, 64) }
            } else if info.ai_family == AF_INET6 {
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { var a = $0.pointee.sin6_addr; _ = inet_ntop(AF_INET6, &a, &text, 64) }
            }
            let found = String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if ModePlan.isAddress(found) && !out.contains(found) { out.append(found) }
        }
        return out.isEmpty ? .failure(ChangeError("the store's host \(host) has no address; nothing was changed")) : .success(out)
    }

    /// `nameserver` lines that are plain addresses (a scoped IPv6 address is left out).
    static func nameServers() -> [String] {
        // Without a readable resolv.conf no name server is let through: the rule stays closed.
        guard let bytes = try? Files.read("/etc/resolv.conf") else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words[0] == "nameserver", ModePlan.isAddress(String(words[1])) else { return nil }
            return String(words[1])
        }
    }
}
