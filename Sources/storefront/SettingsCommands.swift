// Subcommands for the store's clock (Q5), the outcome policy (Q4), the device (A3), the catalog
// (C5), and the screen (L1).
import ArgumentParser
import Foundation
import StoreCore
import StoreModel
import TerminalUI

#if canImport(Glibc)
    import Glibc
#endif

struct ClockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "The store's time, shared by every device of the state folder.",
        discussion: "Moving the clock fires delayed outcomes that come due (Q5).",
        subcommands: [Show.self, Advance.self, Set.self, Real.self, Freeze.self, Rate.self],
        defaultSubcommand: Show.self
    )

    static func change(_ context: Context, _ change: (ClockSetting, Date) throws -> ClockSetting) throws {
        context.report(try context.store.settings.changeClock(change))
        try show(context)
    }

    private struct Shown: Encodable {
        var now: String?
        var mode: String
        var offsetSeconds, rate: Int
    }

    static func show(_ context: Context) throws {
        let setting = try context.store.settings.clockSetting()
        let now = context.store.now()
        output(
            context,
            json: Shown(
                now: context.dateText(now), mode: setting.mode.rawValue, offsetSeconds: Int(setting.offset),
                rate: Int(setting.rate)),
            text: "\(context.isoText(now))  (\(setting.summary))"
        )
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the store's time.")
        @OptionGroup var common: CommonOptions
        func run() throws { try perform(common) { try ClockCommand.show($0) } }
    }

    struct Advance: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move the store's time forward: 90m, 12h, 1d, 2w, 3mo, 1y, 1d12h, 3 days.")
        @Argument(help: ArgumentHelp("How far (3d, or in words: 3 days).", valueName: "duration")) var words: [String]
        @OptionGroup var common: CommonOptions

        /// `clock advance 3 days` is two words, read as one duration.
        var duration: DurationArgument {
            get throws { try DurationArgument(parsing: words.joined(separator: " ")) }
        }

        func validate() throws {
            guard !words.isEmpty else { throw ValidationError("Missing expected argument '<duration>'") }
            do { _ = try duration } catch { throw ValidationError("\(error)") }
        }

        func run() throws {
            let duration = try duration
            try perform(common) { context in
                try ClockCommand.change(context) { setting, real in
                    setting.advanced(by: duration.duration, real: real, calendar: context.calendar)
                }
            }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the store's time (ISO 8601); it keeps running unless frozen.")
        @Argument(help: "The time, e.g. 2026-01-31T09:00:00Z.", transform: TimeArgument.parse) var time: TimeArgument
        @OptionGroup var common: CommonOptions

        func run() throws {
            try perform(common) { context in
                try ClockCommand.change(context) { setting, real in setting.setting(now: time.date, real: real) }
            }
        }
    }

    struct Real: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Go back to real time.")
        @OptionGroup var common: CommonOptions
        func run() throws { try perform(common) { try ClockCommand.change($0) { _, _ in ClockSetting.standard } } }
    }

    struct Freeze: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop the store's time (at TIME if given); only commands move it.")
        @Argument(help: "Where to stop it (ISO 8601); default: now.", transform: TimeArgument.parse) var time:
            TimeArgument?
        @OptionGroup var common: CommonOptions

        func run() throws {
            try perform(common) { context in
                try ClockCommand.change(context) { setting, real in
                    ClockSetting(mode: .frozen, frozenAt: time?.date ?? setting.now(real: real))
                }
            }
        }
    }

    struct Rate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Run the store's time N times faster; \"sandbox\" is 8640× (one month of subscription in five minutes)."
        )
        @Argument(help: "The rate.", transform: RateArgument.parse) var rate: RateArgument
        @OptionGroup var common: CommonOptions

        func run() throws {
            try perform(common) { context in
                try ClockCommand.change(context) { setting, real in
                    setting.accelerated(rate: rate.rate, real: real, sandbox: rate.sandbox)
                }
            }
        }
    }
}

struct Policy: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The device's outcome policy for the next purchases (Q4).",
        subcommands: [Show.self, Set.self],
        defaultSubcommand: Show.self
    )

    static func show(_ context: Context) throws {
        let policy = try context.store.queue.policy().description
        output(context, json: PolicyOutput(policy: policy), text: policy)
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the policy.")
        @OptionGroup var common: CommonOptions
        func run() throws { try perform(common) { try Policy.show($0) } }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the policy: approve, defer, fail=REASON, delay=DURATION:approve|decline, interrupt.",
            discussion: "Reasons: " + FailureReason.policyReasons.map(\.rawValue).joined(separator: ", ") + "."
        )
        @Argument(help: "The outcome.", transform: OutcomeArgument.parse) var policy: OutcomeArgument
        @OptionGroup var common: CommonOptions

        func run() throws {
            try perform(common) { context in
                try context.store.queue.setPolicy(policy.outcome)
                try Policy.show(context)
            }
        }
    }
}

struct ResetDevice: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-device",
        abstract: "\"Delete the app\" on this device (A3): its state goes, the accounts and other devices stay."
    )
    @OptionGroup var common: CommonOptions

    func run() throws {
        // Without opening the device's database: "deleting the app" must work on a corrupt one too.
        try reportingFailures {
            let directory = StateDirectory(try Context.resolveStateDirectory(common))
            try directory.removeDevice(common.device)
            struct Reset: Encodable { var device: String }
            print(
                common.json
                    ? OutputEncoder.encode(Reset(device: common.device)).rendered()
                    : "device \"\(common.device)\" reset")
        }
    }
}

struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Check a catalog file (C5).",
        subcommands: [Check.self],
        defaultSubcommand: Check.self
    )

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a catalog: errors exit 2; warnings are printed, and fail with --strict.")
        @Argument(help: "The catalog file (default: the one --catalog names, else the shipped one).") var file: String?
        @Flag(help: "Treat warnings (a missing image, an unknown key) as errors.") var strict = false
        @Flag(help: "Print JSON for scripts.") var json = false
        @OptionGroup var catalogOptions: CatalogOptions

        func run() throws {
            var options = catalogOptions.common
            if let file { options.catalog = file }
            try reportingFailures {
                let loaded = try Context.loadCatalog(options)
                let warnings =
                    loaded.warnings
                    + PictureCheck.warnings(loaded, file: try Context.catalogFile(options).lastPathComponent)
                for warning in warnings { printError(warning.description) }
                let catalog = loaded.catalog
                var settings: [String] = []
                if catalog.defaultPolicy != .approve { settings.append("policy \(catalog.defaultPolicy)") }
                if let rate = catalog.clockRate { settings.append("clock ×\(Int(rate))") }
                if let billing = catalog.billing {
                    settings.append(
                        "billing \(billing.failing ? "fails" : "ok")"
                            + (billing.graceDays.map { ", grace \($0) days" } ?? ""))
                }
                let durations = catalog.products.compactMap { product in
                    product.durationSource.map {
                        "\(product.id): " + (product.duration.map { "\($0) (\($0.phrase), " } ?? "") + $0
                            + (product.duration == nil ? "" : ")")
                    }
                }
                struct Checked: Encodable {
                    var format: String
                    var products: Int
                    var currency, locale, storefront, storefrontId: String
                    var settings, durations, warnings: [String]
                    /// Only a package's: absent, not null, for every other catalog.
                    var unusedAssets: Omitted<[String]>
                }
                let report = Checked(
                    format: catalog.format, products: catalog.products.count, currency: catalog.currencyCode,
                    locale: catalog.localeIdentifier, storefront: catalog.storefront,
                    storefrontId: catalog.storefrontID, settings: settings, durations: durations,
                    warnings: warnings.map(\.description),
                    unusedAssets: Omitted(loaded.unusedAssets.isEmpty ? nil : loaded.unusedAssets))
                var lines = [
                    "ok: \(catalog.format), \(catalog.products.count) products in \(catalog.currencyCode) (\(catalog.localeIdentifier)), \(warnings.count) warning(s)",
                    "storefront \(catalog.storefront) (Apple's id \(catalog.storefrontID)), \(catalog.storefrontReason)",
                ]
                if !settings.isEmpty {
                    lines.append("a fresh state folder starts with: " + settings.joined(separator: "; "))
                }
                lines += durations.map { "  " + $0 }
                if !loaded.unusedAssets.isEmpty {
                    lines.append("assets no product names (not loaded):")
                    lines += loaded.unusedAssets.map { "  " + $0 }
                }
                print(json ? OutputEncoder.encode(report).rendered() : lines.joined(separator: "\n"))
                if strict, !warnings.isEmpty { throw ExitCode(2) }
            }
        }
    }
}

struct Screen: ParsableCommand {
    /// Parsed as a root of its own when `storefront` starts the screen (Storefront.main), whose
    /// super-command is `storefront`. Naming it spares every start ArgumentParser's search for a
    /// completion-script request, two more parses that a command with a super-command never takes
    /// (a quarter of the instructions before the first frame; BENCHMARKS.md at 8a86700, "One program"): the
    /// root command answers `--generate-completion-script`, and the screen is never started for it.
    static let configuration = CommandConfiguration(
        commandName: "screen", _superCommandName: "storefront", abstract: "Open the storefront screen (the default)."
    )
    @OptionGroup var common: CommonOptions
    @Option(
        help: ArgumentHelp(
            "Two or three devices side by side, one pane each, with a rail of what passes between them (Tab moves the keyboard).",
            valueName: "name,name[,name]"
        ))
    var devices: String?

    func run() throws {
        try reportingFailures {
            let names = try devices.map(ScreenProgram.deviceNames) ?? []
            try requireTerminal()
            try ScreenProgram(options: common, devices: names).run()
        }
    }
}

struct CrashPoints: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-points",
        abstract: "List the durability steps STOREFRONT_FAULT=crash-at:POINT can stop a command at.",
        discussion: "Each is a point just after a durable write; the next command completes what a crash there cut."
    )
    @Flag(help: "Print JSON for scripts.") var json = false

    func run() throws {
        let points = CrashPoint.allCases
        if json {
            struct Point: Encodable { var name, leaves: String }
            print(OutputEncoder.encode(points.map { Point(name: $0.rawValue, leaves: $0.summary) }).rendered())
        } else {
            let width = points.map { TextWidth.of($0.rawValue) }.max() ?? 0
            for point in points { print(TextWidth.pad(point.rawValue, to: width) + "  " + point.summary) }
        }
    }
}
