// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Carrel",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "carrel", targets: ["carrel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    ],
    targets: [
        .systemLibrary(name: "CNcursesw", path: "Sources/CNcursesw"),
        .target(
            name: "AssessmentKit",
            dependencies: [
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Question banks from other systems (GIFT, Aiken, QTI) turned into the same model.
        .target(
            name: "ImportKit",
            dependencies: [
                "AssessmentKit",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .target(
            name: "SessionKit",
            dependencies: [
                "AssessmentKit", "Lockdown",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(name: "Lockdown", dependencies: ["AssessmentKit"]),
        .target(name: "TerminalUI", dependencies: ["CNcursesw", "AssessmentKit", "SessionKit"]),
        .executableTarget(
            name: "carrel",
            dependencies: [
                "AssessmentKit", "ImportKit", "SessionKit", "Lockdown", "TerminalUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A headless front end that drives the real session controller for the tests.
        .executableTarget(
            name: "carrel-session-driver",
            dependencies: ["AssessmentKit", "SessionKit", "Lockdown"],
            path: "Tests/SessionDriver"
        ),
        .testTarget(name: "AssessmentKitTests", dependencies: ["AssessmentKit"]),
        .testTarget(name: "SessionKitTests", dependencies: ["AssessmentKit", "SessionKit", "Lockdown"]),
        .testTarget(name: "TerminalUITests", dependencies: ["AssessmentKit", "SessionKit", "TerminalUI"], exclude: ["Golden"]),
        .testTarget(name: "EndToEndTests", dependencies: ["AssessmentKit", "SessionKit", "Lockdown"]),
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
