// swift-tools-version:6.1
import PackageDescription
#if os(Linux)
import Glibc

/// Packed relative relocations (DT_RELR) are applied by glibc 2.36 and later only, and lld
/// does not check: they are asked for only where the build's own glibc has them (the glibc of
/// the distribution the binary is built and packaged for; scripts/package raises Depends).
let packedRelocations: Bool = {
    var buffer = [CChar](repeating: 0, count: 64)
    guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return false }
    let version = String(cString: buffer).split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
    return version.count >= 2 && (version[0], version[1]) >= (2, 36)
}()
#else
let packedRelocations = false
#endif

let package = Package(
    name: "Carrel",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "carrel", targets: ["carrel"]),
        .executable(name: "carrel-keysign", targets: ["carrel-keysign"]),
        .executable(name: "carrel-assessmentd", targets: ["carrel-assessmentd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(name: "CNcursesw", path: "Sources/CNcursesw"),
        // prctl and other Linux calls that do not import into Swift.
        .target(name: "CLinux", path: "Sources/CLinux"),
        // The helper's launch of the seat's Carrel: fork, give up root, fexecve (no Foundation).
        .target(name: "CKeysign", path: "Sources/CKeysign"),
        // libxml2's pull parser for the import of Moodle XML and QTI, loaded with dlopen when a
        // bank is imported: a linked libxml2 (with the ICU it brings) was loaded and relocated
        // at every launch of the exam. The header is libxml2-dev's (scripts/install-deps).
        .target(name: "CXMLReader", path: "Sources/CXMLReader", cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])]),
        .target(name: "Localization"),
        // Assessment mode for the whole machine: the policy, the plan of its steps as values,
        // and the protocol between a session and the service `carrel-assessmentd`.
        .target(name: "AssessmentMode"),
        // What an enrolled machine's key signs for a seat, and how it is checked: no Foundation,
        // swift-crypto only, for the privileged helper.
        .target(name: "MachineSeal", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // The privileged part of enrolment (setuid root): launches the enrolled Carrel itself and
        // signs seat announcements for that child alone, over a socket only the child holds.
        .executableTarget(
            name: "carrel-keysign",
            dependencies: ["MachineSeal", "CKeysign", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))]
        ),
        // The assessment-mode service's Linux calls that need _GNU_SOURCE (SO_PEERCRED, signalfd).
        .target(name: "CAssessmentd", path: "Sources/CAssessmentd"),
        // The service's rules without the OS: the mode's lifecycle over an executor of changes
        // and a record on disk, the proctor's passphrase check, the watchers' rules.
        .target(
            name: "ModeService",
            dependencies: [
                "AssessmentMode",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The assessment-mode service (root, systemd): locks the lab machine to a session of the
        // trusted Carrel and puts it back on end, unlock, the time limit, or its next start.
        .executableTarget(
            name: "carrel-assessmentd",
            dependencies: ["AssessmentMode", "ModeService", "CAssessmentd", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))]
        ),
        // For the service's root tests only (not a product): sends request lines from its stdin
        // to the service's socket and prints the replies; the tests name it as the trusted binary.
        .executableTarget(name: "carrel-mode-probe", dependencies: ["AssessmentMode"], path: "Tests/ModeProbe"),
        .target(
            name: "AssessmentKit",
            dependencies: [
                "Localization", "AssessmentMode",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Question banks from other systems (GIFT, Aiken, QTI) turned into the same model.
        .target(
            name: "ImportKit",
            dependencies: [
                "AssessmentKit", "CXMLReader",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .target(
            name: "SessionKit",
            dependencies: [
                "AssessmentKit", "AssessmentMode", "Localization",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "Lockdown",
            dependencies: [
                "AssessmentKit", "SessionKit", "CLinux",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ]
        ),
        // A lab's shared store (PostgreSQL): seats publish their journal through an outbox,
        // the proctor console and `results --shared` read it.
        .target(
            name: "SharedStore",
            dependencies: [
                "AssessmentKit", "SessionKit", "MachineSeal",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .target(name: "TerminalUI", dependencies: ["CNcursesw", "CLinux", "AssessmentKit", "SessionKit", "Localization"]),
        .executableTarget(
            name: "carrel",
            dependencies: [
                "AssessmentKit", "Localization", "ImportKit", "SessionKit", "Lockdown", "TerminalUI", "SharedStore", "MachineSeal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The release binary carries the Swift runtime and Foundation inside it: loading
            // and relocating them as shared libraries took about 18 ms of every launch, more
            // than the rest of drawing the start screen (Benchmarks/README.md).
            // Linked by the toolchain's lld with packed relative relocations (DT_RELR, where the
            // build's glibc has them, above): the position-independent binary's 146 000
            // pointers are fixed from a 30 kB table instead of a 3.4 MB one read at every
            // launch (about 0.5-0.9 ms of it). Nothing
            // looks symbols up in the executable, so it exports none: the runtime's start
            // looks its own address up (dladdr), a walk over 47 000 exported symbols otherwise
            // (3.5 million instructions of every launch).
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-use-ld=lld", "-Xlinker", "--no-export-dynamic"]
                                            + (packedRelocations ? ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"] : []),
                                          .when(platforms: [.linux], configuration: .release))]
        ),
        // A headless front end that drives the real session controller for the tests.
        .executableTarget(
            name: "carrel-session-driver",
            dependencies: ["AssessmentKit", "SessionKit", "Lockdown", "SharedStore", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/SessionDriver",
            // Linked as `carrel` is (the Swift runtime inside it), so that the room benchmark's
            // seats (scripts/bench-room) cost what a seat's Carrel costs, not a shared runtime's
            // symbol binding and thread-local lookups.
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))]
        ),
        // Journal figures on the real runtime (scripts/bench-journal, release build).
        // What the benchmark programs share (inert edges for a session measured on its own).
        .target(name: "BenchSupport", dependencies: ["AssessmentKit", "SessionKit", "Lockdown"], path: "Benchmarks/BenchSupport"),
        .executableTarget(
            name: "carrel-journal-bench",
            dependencies: ["AssessmentKit", "SessionKit", "Lockdown", "BenchSupport", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/JournalBench"
        ),
        // Light seats for scripts/bench-room --light: many real runtimes and publishers in one
        // process (release build).
        .executableTarget(
            name: "carrel-room-sim",
            dependencies: ["AssessmentKit", "SessionKit", "Lockdown", "SharedStore", "BenchSupport"],
            path: "Benchmarks/RoomSim"
        ),
        // In-memory edges for the runtime, shared by the test targets.
        .target(
            name: "SessionTestSupport",
            dependencies: ["AssessmentKit", "SessionKit", "Lockdown", "CLinux", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/SessionTestSupport"
        ),
        // The lab's store in memory, for the seat publisher's rules (cut, slowed, restarted).
        .target(name: "StoreTestSupport", dependencies: ["AssessmentKit", "SessionKit", "SharedStore"], path: "Tests/StoreTestSupport"),
        // Unit tests: in-process, or the built binaries on files in a temporary folder. They
        // need no tmux, screen, strace, PostgreSQL or X server (`scripts/test --quick`).
        .testTarget(name: "AssessmentKitTests", dependencies: ["AssessmentKit"]),
        // The assessment-mode service's rules in memory: the plan, the lifecycle over a fake
        // machine, the record, the passphrase, the watchers (no root, milliseconds).
        .testTarget(name: "AssessmentModeTests", dependencies: [
            "AssessmentMode", "ModeService", .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),
        // The signed announcement, and the privileged helper run for real (as root).
        .testTarget(name: "MachineSealTests", dependencies: ["MachineSeal", "SharedStore", "SessionKit", "SessionTestSupport"]),
        // The seat publisher's rules: its state as tables, and its loop over the in-memory store.
        .testTarget(name: "PublisherTests", dependencies: [
            "AssessmentKit", "SessionKit", "SharedStore", "SessionTestSupport", "StoreTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "SessionKitTests", dependencies: [
            "AssessmentKit", "Localization", "SessionKit", "Lockdown", "SessionTestSupport", "SharedStore", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // System tests: the real binaries against the real operating system and services —
        // tmux and screen, strace and setpriv, a private PostgreSQL, a private X server.
        .testTarget(name: "SystemTests", dependencies: [
            "AssessmentKit", "AssessmentMode", "SessionKit", "Lockdown", "SessionTestSupport", "SharedStore", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "TerminalUITests", dependencies: [
            "AssessmentKit", "Localization", "SessionKit", "TerminalUI", "SessionTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
        ], exclude: ["Golden", "Fixtures"]),
        // End-to-end tests: the real `carrel` driven in tmux, as a student and a proctor would.
        .testTarget(name: "EndToEndTests", dependencies: ["AssessmentKit", "SessionKit", "Lockdown", "SessionTestSupport", "MachineSeal"]),
        .testTarget(name: "CarrelCLITests", dependencies: [
            "AssessmentKit",
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        ]),
        .testTarget(
            name: "ImportKitTests",
            dependencies: [
                "AssessmentKit", "ImportKit",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The micro-benchmark suite (ordo-one/package-benchmark) joins the package only when asked,
// so the test suite and CI never build it: `scripts/bench-suite` sets CARREL_BENCHMARKS=1 and
// builds it in a scratch folder of its own.
if Context.environment["CARREL_BENCHMARKS"] != nil {
    package.products.append(.library(name: "CarrelKit", targets: ["AssessmentKit", "SessionKit", "Lockdown", "TerminalUI"]))
    package.dependencies.append(.package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]))
    package.targets.append(.executableTarget(
        name: "CarrelBenchmarks",
        dependencies: [
            "AssessmentKit", "SessionKit", "Lockdown", "TerminalUI",
            .product(name: "Benchmark", package: "benchmark"),
        ],
        path: "Benchmarks/CarrelBenchmarks",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ))
}
