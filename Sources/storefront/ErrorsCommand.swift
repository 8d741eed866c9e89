// `storefront errors`: StoreKit's simulated errors, one API at a time (Q7).
import ArgumentParser
import Foundation
import StoreCore
import StoreModel

struct ErrorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "errors",
        abstract:
            "StoreKit's simulated errors: fail one API (load-products, purchase, verification, app-store-sync …) with an error named as Apple names it.",
        discussion: """
            With no subcommand, lists the errors in force (the state folder's, else the catalog's \
            _storeKitErrors). APIs: \(StoreKitAPI.allCases.map(\.argument).joined(separator: ", ")).
            """,
        subcommands: [Show.self, Set.self, Clear.self],
        defaultSubcommand: Show.self
    )

    static func show(_ context: Context) throws {
        let errors = try context.store.settings.simulatedErrors()
        struct InForce: Encodable {
            var api, argument: String
            var error: String?
            var fails: String
        }
        let json = StoreKitAPI.allCases.map {
            InForce(api: $0.rawValue, argument: $0.argument, error: errors[$0]?.description, fails: $0.counterpart)
        }
        let text = errors.isEmpty ? "no simulated errors" : errors.lines.joined(separator: "\n")
        output(context, json: json, text: text)
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The errors in force, one line per failing API.")
        @OptionGroup var common: CommonOptions

        func run() throws { try perform(common) { context in try ErrorsCommand.show(context) } }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Fail API with ERROR: `errors set purchase Product.PurchaseError.productUnavailable`, `errors set load-products networkError`."
        )
        @Argument(help: "The API: \(StoreKitAPI.allCases.map(\.argument).joined(separator: ", ")).") var api: String
        @Argument(
            help:
                "The error: StoreKitError.*, Product.PurchaseError.* (purchase), VerificationResult.VerificationError.* (verification), 21005 or 21009 (verify-receipt)."
        ) var error: String
        @OptionGroup var common: CommonOptions

        func run() throws {
            try reportingFailures {
                let api = try ErrorsCommand.api(self.api)
                guard let error = SimulatedError(parsing: self.error, for: api) else {
                    throw CommandFailure(
                        message:
                            "\"\(self.error)\" is not an error \(api.rawValue) can have (one of: \(api.allowedErrors.map(\.name).joined(separator: ", ")))",
                        status: 2
                    )
                }
                try perform(common) { context in
                    try context.store.settings.setSimulatedError(error, for: api)
                    try ErrorsCommand.show(context)
                }
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop failing API, or every API when none is named.")
        @Argument(help: "The API (default: all of them).") var api: String?
        @OptionGroup var common: CommonOptions

        func run() throws {
            try reportingFailures {
                let api = try self.api.map(ErrorsCommand.api)
                try perform(common) { context in
                    if let api {
                        try context.store.settings.setSimulatedError(nil, for: api)
                    } else {
                        try context.store.settings.setSimulatedErrors(SimulatedErrors())
                    }
                    try ErrorsCommand.show(context)
                }
            }
        }
    }

    static func api(_ text: String) throws -> StoreKitAPI {
        guard let api = StoreKitAPI(argument: text) else {
            throw CommandFailure(
                message:
                    "\"\(text)\" is not a StoreKit API (\(StoreKitAPI.allCases.map(\.argument).joined(separator: ", ")))",
                status: 2)
        }
        return api
    }
}
