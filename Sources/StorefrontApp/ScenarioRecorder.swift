// Records what a person does on the screen as a scenario, so that a bug found by hand becomes a
// repeatable test: every effect becomes a step, and the final state becomes expectations.
import Foundation
import StoreCore
import StoreModel

public final class ScenarioRecorder {
    private let catalog: Catalog
    public private(set) var lines: [String]

    public init(catalog: Catalog, title: String) {
        self.catalog = catalog
        lines = [
            "# \(title)",
            "# Recorded with `storefront scenario record`; replay with `storefront scenario check` or `play`.",
        ]
    }

    func title(_ id: String) -> String { "\"\(catalog.product(id)?.title ?? id)\"" }

    public func record(_ effect: Effect) {
        switch effect {
        case .buy(let id): lines.append("buy \(title(id))")
        case .buyBilled(let id, let plan): lines.append("buy \(title(id)) \(plan == .monthly ? "monthly" : "upfront")")
        case .buyOffer(let id, let offerID): lines.append("buy \(title(id)) offer \(offerID)")
        case .buyIntro(let id, let allow): lines.append("buy \(title(id)) intro \(allow ? "allow" : "withhold")")
        case .redeem(let code): lines.append("redeem \(code)")
        case .requestRefund:
            lines.append("# a refund request (the screen's F) is not recorded: ids differ from run to run")
        case .answerRefund(_, let approve): lines.append("refund-request \(approve ? "approve" : "decline")")
        // Ids differ from run to run; the pending one acted on is the last, as the screen selects it.
        case .approve: lines.append("approve last")
        case .decline: lines.append("decline last")
        case .resolve: lines.append("resolve last")
        case .restore: lines.append("restore")
        case .showRandom: lines.append("random")
        case .setPolicy(let policy): lines.append("policy \(policy)")
        case .advanceClock(let duration): lines.append("advance \(duration)")
        case .plan(let command, let id): lines.append("\(command.rawValue) \(title(id))")
        case .setBilling(let billing):
            lines.append("billing \(billing.failing ? "fail" : "ok")")
            lines.append("grace \(billing.graceDays.map { "\($0)d" } ?? "off")")
        case .setSimulatedErrors(let errors):
            lines.append("errors clear")
            for api in errors.errors.keys.sorted() { lines.append("error \(api.argument) \(errors[api]!)") }
        case .setStorefront(let code): lines.append("storefront \(code)")
        case .realClock: lines.append("# (the clock went back to real time here; scenarios keep their own)")
        case .signIn(let name, let password): lines.append("sign in \(name) password \"\(password)\"")
        case .signUp(let name, let password): lines.append("sign up \(name) password \"\(password)\"")
        case .signOut: lines.append("sign out")
        // M2: `c` was recorded as a cancel; taking the retention offer instead replaces it.
        case .retention(.accept(let id, _)):
            if lines.last == "cancel \(title(id))" { lines.removeLast() }
            lines.append("accept retention \(title(id))")
        case .retention(.cancel): break
        case .settle, .loadPicture, .quit, .inspect: break
        }
    }

    /// Expectations that pin down where the session ended.
    public func finish(with status: StoreStatus) {
        lines.append("")
        lines.append("# Where the session ended:")
        lines.append("expect user \(status.user ?? "guest")")
        lines.append("expect header \"\(status.header)\"")
        lines.append("expect views \(status.randomViewsRemaining)")
        for id in status.owned { lines.append("expect owned \(title(id))") }
    }

    public var text: String { lines.joined(separator: "\n") + "\n" }
}
