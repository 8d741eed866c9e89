// swift-tools-version: 6.0
// Storefront builds and is tested on Linux only (README, "Platforms"): the screen is ncursesw and
// libpng through Debian's packages, and the tests drive tmux, PostgreSQL and Linux namespaces.
import PackageDescription

#if !os(Linux)
    #error("Storefront builds on Linux only (README, Platforms)")
#endif

let package = Package(
    name: "Storefront",
    products: [
        .executable(name: "storefront", targets: ["storefront"]),
        .library(name: "StoreModel", targets: ["StoreModel"]),
        .library(name: "StoreCore", targets: ["StoreCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        // The state folder's certificate authority (S1): X.509 certificates and their DER.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // `storefront serve`: the App Store Server API over HTTP.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // `storefront serve --database postgres://…`: the account server's state in PostgreSQL (W5).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `storefront serve`'s background work as services that stop with it, and their logs.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // `storefront serve --tls-cert --tls-key`: HTTPS (W6).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Every outgoing call (`--server`, webhooks, the realtime retention URL), http:// and https://.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The end-to-end tests run the program and wait for it without holding a thread.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
    ],
    targets: [
        // The store's rules as values: the catalog, periods, plans and their fold, payment decisions,
        // offers, refunds, families, notifications and the payloads that are signed. No package
        // dependency, no database, clock or network: every other target builds on it (decision 14).
        .target(name: "StoreModel"),
        // The store: catalog, entitlements, subscription arithmetic, payment queue, accounts,
        // persistence. Knows nothing of terminals.
        .target(
            name: "StoreCore",
            dependencies: [
                "StoreModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // ncursesw, through a shim header.
        .systemLibrary(name: "CNCurses", pkgConfig: "ncursesw", providers: [.apt(["libncurses-dev"])]),
        // libpng (its row reader in C, where its longjmp may land) and libjpeg-turbo's TurboJPEG.
        .target(
            name: "CImageCodecs",
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("turbojpeg")]
        ),
        // Cell grids, drawing, images, key events and the one curses backend. Knows nothing of products.
        .target(name: "TerminalUI", dependencies: ["CNCurses", "CImageCodecs"]),
        // State, actions, reduce, views and the loop that runs them against a store.
        .target(name: "StorefrontApp", dependencies: ["StoreCore", "StoreModel", "TerminalUI"]),
        // Draws the shipped comics (assets/comics, assets/random): `swift run make-comics assets`.
        .executableTarget(name: "make-comics", dependencies: ["TerminalUI"]),
        // Benchmarks: `swift build -c release && .build/release/storefront-bench` (BENCHMARKS.md).
        .executableTarget(
            name: "ncurses-floor", path: "Benchmarks/ncurses-floor", linkerSettings: [.linkedLibrary("ncursesw")]
        ),
        .executableTarget(
            name: "storefront-bench",
            dependencies: [
                "StoreCore", "StoreModel", "TerminalUI", "StorefrontApp", "StorefrontServer", "TestSupport",
                "CImageCodecs",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Benchmarks/storefront-bench"
        ),
        .executableTarget(
            name: "storefront",
            dependencies: [
                "StoreCore", "StoreModel",
                "StorefrontApp",
                "StorefrontServer",
                "TerminalUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // A release build is stripped: the one file to copy carries no symbol table.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--strip-all"], .when(configuration: .release))],
            plugins: ["VersionStamp"]
        ),
        // `storefront --version` names the commit it was built from.
        .plugin(name: "VersionStamp", capability: .buildTool()),
        // `storefront serve`: the App Store Server API on Hummingbird, and the program that runs it.
        .target(
            name: "StorefrontServer",
            dependencies: [
                "StoreCore", "StoreModel", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Helpers the test targets share: temporary state folders, a manual clock, a small catalog.
        .target(
            name: "TestSupport",
            dependencies: [
                "StoreCore", "StoreModel", "TerminalUI", .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/TestSupport"),
        .testTarget(
            name: "StoreCoreTests",
            dependencies: [
                "StoreCore", "StoreModel", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "TestSupport"]),
        .testTarget(
            name: "StorefrontServerTests",
            dependencies: [
                "StorefrontServer", "StoreCore", "StoreModel", "StorefrontApp", "TestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "StorefrontAppTests",
            dependencies: ["StorefrontApp", "StoreCore", "StoreModel", "TerminalUI", "TestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "storefront", "StoreCore", "StoreModel", "StorefrontServer", "TerminalUI", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
