// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Storefront",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "storefront", targets: ["storefront"]),
        .library(name: "StoreCore", targets: ["StoreCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
    ],
    targets: [
        // The store: catalog, entitlements, subscription arithmetic, payment queue, accounts,
        // persistence. Knows nothing of terminals.
        .target(
            name: "StoreCore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "storefront",
            dependencies: [
                "StoreCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "StoreCoreTests", dependencies: ["StoreCore"]),
        .testTarget(name: "EndToEndTests", dependencies: ["storefront", "StoreCore"]),
    ],
    swiftLanguageModes: [.v6]
)
