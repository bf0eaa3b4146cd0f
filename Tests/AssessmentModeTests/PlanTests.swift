import AssessmentMode
import Testing

/// The plan of a mode's changes for each policy, as tables.
@Suite struct PlanTests {
    let resolved = ModePlan.Resolved(store: [("10.0.0.5", 5432), ("fd00::5", 5432)], nameServers: ["10.0.0.1", "fd00::1"])

    @Test(arguments: [
        (MachinePolicy.Network.storeOnly, true, ["ip daddr 10.0.0.5 tcp dport 5432 accept", "ip6 daddr fd00::5 tcp dport 5432 accept",
                                                 "ip daddr 10.0.0.1 udp dport 53 accept", "ip6 daddr fd00::1 tcp dport 53 accept"]),
        (.none, true, []),
        (.allow, false, []),
    ])
    func theNetworkStep(rule: MachinePolicy.Network, planned: Bool, accepted: [String]) throws {
        let steps = ModePlan.steps(MachinePolicy(network: rule), uid: 1001, account: "carrel1", resolved: resolved)
        let network = steps.first { $0.kind == .network }
        #expect((network != nil) == planned)
        guard let network else { return }
        guard case let .nftables(table, ruleset) = try #require(network.changes.first) else {
            Issue.record("the network step is not an nftables table")
            return
        }
        #expect(table == "carrel_assessment")
        // Only the account's packets are judged; a refusal's answer (no socket) passes.
        #expect(ruleset.contains("meta skuid 1001 jump seat") && !ruleset.contains("skuid !="))
        #expect(ruleset.contains("meta l4proto tcp reject with tcp reset"))
        for rule in accepted { #expect(ruleset.contains(rule), "\(rule)") }
        if rule == .none {
            #expect(!ruleset.contains("daddr"))
            #expect(network.detail.contains("no network"))
        } else {
            #expect(network.detail.contains("10.0.0.5:5432") && network.detail.contains("[fd00::5]:5432") && network.detail.contains("its name servers"))
        }
    }

    @Test func theDefaultsPlanEveryStepAndLockMakesThemRequired() {
        let prefer = ModePlan.steps(MachinePolicy(), uid: 1001, account: "carrel1", resolved: resolved)
        #expect(prefer.map(\.kind) == [.network, .logins, .consoles, .devices, .processes])
        #expect(prefer.allSatisfy { !$0.required })
        let lock = ModePlan.steps(MachinePolicy(machine: .lock), uid: 1001, account: "carrel1", resolved: resolved)
        #expect(lock.allSatisfy { $0.required })
        guard case let .file(path, contents)? = lock.first(where: { $0.kind == .logins })?.changes.first else {
            Issue.record("the logins step writes no file")
            return
        }
        #expect(path == ModePlan.nologin && contents.contains("only administrators may log in"))
        #expect(lock.first { $0.kind == .consoles }?.changes == [.lockConsoleSwitch, .sysctl(path: "/proc/sys/kernel/sysrq", value: "0"),
                                                                 .maskUnit("ctrl-alt-del.target")])
        #expect(lock.first { $0.kind == .devices }?.changes == [.file(path: ModePlan.modprobeBlock, contents: "install usb-storage /bin/false\n")])
        #expect(lock.first { $0.kind == .processes }?.changes == [.sysctl(path: "/proc/sys/dev/tty/legacy_tiocsti", value: "0")])
    }

    @Test func everythingAllowedPlansNothing() {
        let policy = MachinePolicy(network: .allow, logins: .allow, consoles: .allow, devices: .allow, processes: .ignore)
        #expect(ModePlan.steps(policy, uid: 1001, account: "carrel1", resolved: resolved).isEmpty)
    }

    @Test func aStoreThatResolvedToNothingLeavesNoNetwork() throws {
        let steps = ModePlan.steps(MachinePolicy(), uid: 1002, account: "carrel2", resolved: ModePlan.Resolved(store: [], nameServers: []))
        let network = try #require(steps.first)
        #expect(network.detail == "carrel2 (uid 1002) reaches no network")
    }

    /// A session with no store reaches no name server either: name resolution would carry
    /// whatever a student asked of it out of the room.
    @Test func noStoreMeansNoNameServerEither() throws {
        let alone = ModePlan.steps(MachinePolicy(), uid: 1002, account: "carrel2",
                                   resolved: ModePlan.Resolved(store: [], nameServers: ["10.0.0.1"]))
        guard case let .nftables(_, ruleset)? = alone.first?.changes.first else {
            Issue.record("the network step is not an nftables table")
            return
        }
        #expect(!ruleset.contains("10.0.0.1") && !ruleset.contains("dport 53"), "\(ruleset)")
    }

    @Test(arguments: [("10.0.0.5", true), ("fd00::1", true), ("::ffff:10.0.0.1", true), ("10.0.0", false), ("256.1.1.1", false),
                      ("db.lab", false), ("1.2.3.4; flush ruleset", false), ("", false)])
    func addressesArePlainAddressesOnly(text: String, plain: Bool) {
        #expect(ModePlan.isAddress(text) == plain)
    }
}
