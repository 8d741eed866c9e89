// Attacks on family invitations (W19): a customer's own session, on the command line and the raw
// wire, against the real server on SQLite and PostgreSQL. An invitation cannot be squatted, a
// declined one blocks no family, and an invitation tells its sender nothing of the name it names.
import Foundation
import StoreCore
import StoreModel
import TestSupport
import Testing

extension StrangerAttackTests {
    @Test(
        "W19 invitations that cannot be squatted: eve's standing invitation does not stop mom's, kid declines eve's as often as eve sends it, and kid's acceptance decides; a stale or fresh invitation answers eve alike for a name that exists and one that does not; the server dates it, and after 7 days of store time it cannot be accepted; vic's state is unchanged",
        arguments: Backend.allCases)
    func invitationsSquatted(backend: Backend) async throws {
        let team = try await SelfiesTeam(backend: backend)
        let developer = try await team.machine()
        developer.environment["STOREFRONT_DEVELOPER_TOKEN"] = team.token
        var people: [String: Session] = [:]
        for name in ["vic", "mom", "kid", "eve", "gus"] {
            let machine = try await team.machine()
            try await machine.signUp(name)
            people[name] = machine
        }
        let (vic, mom, kid, eve, gus) = (people["vic"]!, people["mom"]!, people["kid"]!, people["eve"]!, people["gus"]!)
        try await vic.run(["buy", "com.storefront.selfies.sub.allaccess"]).expectSuccess()
        func vicsState() async throws -> [String] {
            let receipt = try JSONSerialization.data(
                withJSONObject: try await vic.object(["receipt"]), options: .sortedKeys)
            return [String(decoding: receipt, as: UTF8.self), try await vic.run(["family", "show"]).stdout]
        }
        let before = try await vicsState()
        try await eve.run(["family", "create"]).expectSuccess()
        try await mom.run(["family", "create"]).expectSuccess()
        try await eve.run(["family", "add", "kid"]).expectSuccess()
        try await mom.run(["family", "add", "kid"]).expectSuccess()
        func inviters() async throws -> [String] {
            let listed = try await kid.object(["family", "invitations", "--json"])["invitations"] as? [[String: Any]]
            return (listed ?? []).compactMap { $0["organizer"] as? String }.sorted()
        }
        #expect(try await inviters() == ["eve", "mom"], "eve's invitation does not block mom's")
        for _ in 0..<3 {
            try await kid.run(["family", "leave", "kid", "--from", "eve"]).expectSuccess()
            try await eve.run(["family", "add", "kid"]).expectSuccess()
            #expect(try await inviters() == ["eve", "mom"], "declined and sent again, mom's still stands")
        }
        let several = try await kid.run(["family", "accept"])
        #expect(several.status != 0 && several.stderr.contains("name the family"), "\(several)")
        try await kid.run(["family", "accept", "mom"]).expectSuccess()
        let inEves = try await kid.run(["family", "accept", "eve"])
        #expect(inEves.status != 0 && inEves.stderr.contains("in mom's family"), "\(inEves)")

        // Eve on the raw wire: an invitation to gus (an account) and to a name nobody has, each with
        // a stale `expected` and a fresh one, and a date of her own choosing.
        let wire = Wire(base: team.server.base)
        let session = try wire.session("eve", password: "pw-eve")
        var answers: [String: [String]] = [:]
        for name in ["gus", "nobody-\(UUID().uuidString.prefix(8))"] {
            let current = try #require(try wire.families(session: session).organized(by: "eve"))
            for expected in [Family(organizer: "eve"), current] {
                var invited = current
                invited.invitations.append(Invitation(account: name, at: .distantFuture))
                let answer = try wire.call(
                    "changeFamily", FamilyChange(organizer: "eve", expected: expected, new: invited),
                    session: session)
                let body = try JSONSerialization.data(withJSONObject: answer.body, options: .sortedKeys)
                answers[name.hasPrefix("nobody") ? "nobody" : name, default: []].append(
                    "\(answer.status) " + String(decoding: body, as: UTF8.self))
            }
        }
        #expect(answers["gus"] == answers["nobody"], "\(answers)")
        #expect(answers["gus"]?.last?.hasPrefix("200") == true, "\(answers)")
        let eves = try #require(try wire.families(session: session).organized(by: "eve"))
        let clock = (try await developer.object(["clock"])["now"] as? String).flatMap(
            ISO8601DateFormatter().date(from:))
        let gusInvited = try #require(eves.invitation(of: "gus"))
        #expect(
            clock.map { abs(gusInvited.at.timeIntervalSince($0)) < 3_600 } == true,
            "dated by the server's clock (\(String(describing: clock))), not hers: \(gusInvited)")

        #expect(try await vicsState() == before)

        // A week of store time later, gus cannot accept it; a fresh one he can.
        try await developer.run(["clock", "advance", "8d"]).expectSuccess()
        let late = try await gus.run(["family", "accept", "eve"])
        #expect(late.status != 0 && late.stderr.contains("expired"), "\(late)")
        let raw = try wire.call(
            "changeFamily",
            FamilyChange(
                organizer: "eve", expected: eves,
                new: Family(
                    organizer: "eve", members: ["gus"], invitations: eves.invitations.filter { !$0.names("gus") })),
            session: try wire.session("gus", password: "pw-gus"))
        #expect(raw.status == 403 && "\(raw.body)".contains("expired"), "gus accepting on the raw wire: \(raw)")
        try await eve.run(["family", "add", "gus"]).expectSuccess()
        try await gus.run(["family", "accept", "eve"]).expectSuccess()

        let moms = try #require(try wire.families(session: try wire.session("mom", password: "pw-mom")).first)
        #expect(moms.organizer == "mom" && moms.members == ["kid"], "\(moms)")
        #expect(try await team.server.stop().status == 0, "\(team.server.errorsTail)")
    }
}
