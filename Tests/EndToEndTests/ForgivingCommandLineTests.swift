// A newcomer's first hour: the command line forgives what a person gets slightly wrong,
// and says exactly what was wrong when it cannot.
import Foundation
import Testing

@Suite("A command line that forgives")
struct ForgivingCommandLineTests {
    @Test("--version names the version and the commit it was built from")
    func version() async throws {
        let session = try await Session()
        let result = try await session.run(["--version"])
        #expect(result.status == 0, "\(result)")
        let line = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            line.range(
                of: #"^storefront \d+\.\d+\.\d+ \(commit ([0-9a-f]{12}|unknown)\)$"#, options: .regularExpression)
                != nil, "\(line)")
    }

    @Test(
        "a mistyped subcommand gets the one it is close to; a word close to none gets no guess, and under a command the names it has",
        arguments: [
            (["prodcuts"], "unknown subcommand \"prodcuts\" (did you mean \"products\"?)"),
            (["histroy"], "(did you mean \"history\"?)"),
            (
                ["clock", "advnce", "1d"],
                "unknown subcommand \"advnce\" of `storefront clock` (did you mean \"advance\"?)"
            ),
            (["zebra"], "unknown subcommand \"zebra\" (`storefront --help` lists them)"),
            (
                ["account", "sigin", "ann"],
                "unknown subcommand \"sigin\" of `storefront account` (did you mean \"signin\"?)"
            ),
            (
                ["scenario", "run", "demo.scenario"],
                "unknown subcommand \"run\" of `storefront scenario` (it has check, play, record, list)"
            ),
        ])
    func subcommands(_ arguments: [String], _ says: String) async throws {
        let session = try await Session()
        let result = try await session.run(arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(says), "\(result.stderr)")
    }

    @Test("sign in and sign out are also spelled as the help says them: signin, sign-in, signout, sign-out")
    func signInSpellings() async throws {
        let session = try await Session()
        try await session.signUp("ann")
        for (word, says) in [
            ("signout", "not signed in"), ("sign-in", "signed in as ann"), ("sign-out", "not signed in"),
            ("signin", "signed in as ann"),
        ] {
            let result = try await session.run(
                ["account", word] + (word.hasSuffix("in") ? ["ann"] : []),
                environment: ["STOREFRONT_PASSWORD": "pw-ann"])
            #expect(result.status == 0 && result.stdout.contains(says), "\(word): \(result)")
        }
        let wrong = try await session.run(["account", "signin", "ann"], environment: ["STOREFRONT_PASSWORD": "nope"])
        #expect(wrong.status == 2 && wrong.stderr.contains("wrong password"), "\(wrong)")
        let help = try await session.run(["account", "signin", "--help"])
        #expect(
            help.status == 0 && help.stdout.contains("USAGE: storefront account login [<options>] <name>"), "\(help)")
    }

    @Test("clock advance takes a duration in words, as one argument or several: 3 days, \"1 month 2 days\"")
    func durationInWords() async throws {
        let session = try await Session()
        try await session.run(["clock", "freeze", "2026-01-15T12:00:00Z"]).expectSuccess()
        try await session.run(["clock", "advance", "3", "days"]).expectSuccess()
        try await session.run(["clock", "advance", "1 month 2 days"]).expectSuccess()
        try await session.run(["clock", "advance", "2", "weeks", "--device", "tablet"]).expectSuccess()
        let clock = try await session.object(["clock"])
        #expect(clock["now"] as? String == "2026-03-06T12:00:00Z", "\(clock)")
    }

    @Test("a product is named by id or by title; a suggestion is made only when it is a typo's worth away")
    func products() async throws {
        let session = try await Session()
        try await session.signUp("ann")
        let byTitle = try await session.run(["buy", "Night Shift"])
        #expect(byTitle.status == 0 && byTitle.stdout.contains("Night Shift  purchasing → purchased"), "\(byTitle)")
        let anyCase = try await session.run(["buy", "cat judge"])
        #expect(anyCase.status == 0 && anyCase.stdout.contains("Cat Judge"), "\(anyCase)")
        let far = try await session.run(["buy", "com.storefront.comic.nope"])
        #expect(
            far.status == 2
                && far.stderr
                    == "storefront: unknown product \"com.storefront.comic.nope\" (`storefront products` lists them)\n",
            "\(far)")
        let typo = try await session.run(["buy", "Moon Piza"])
        #expect(
            typo.status == 2 && typo.stderr.contains("(did you mean \"com.storefront.comic.moonpizza\"?"), "\(typo)")
        let ending = try await session.run(["buy", "moonpizza"])
        #expect(
            ending.status == 2 && ending.stderr.contains("did you mean \"com.storefront.comic.moonpizza\""), "\(ending)"
        )
    }

    @Test("plans, prices and family shares take titles too")
    func titlesEverywhere() async throws {
        let session = try await Session()
        session.environment["STOREFRONT_CATALOG"] = repositoryRoot.appendingPathComponent("assets/selfies.json").path
        try await session.signUp("ann")
        try await session.run(["buy", "All Access (Monthly)"]).expectSuccess()
        let cancelled = try await session.run(["cancel", "All Access (Monthly)"])
        #expect(cancelled.status == 0 && cancelled.stdout.contains("All Access (Monthly)"), "\(cancelled)")
        try await session.run(["renew-on", "all access (monthly)"]).expectSuccess()
        try await session.run(["price", "set", "All Access (Weekly)", "2.49"]).expectSuccess()
    }

    @Test("an id shorter than four characters is explained, not just not found")
    func shortIDs() async throws {
        let session = try await Session()
        let result = try await session.run(["approve", "12"])
        #expect(result.status == 2, "\(result)")
        #expect(
            result.stderr.contains("an id may be shortened to its first 4 or more characters, and \"12\" has 2"),
            "\(result.stderr)")
    }

    @Test("a path is reported as it was typed, from any folder")
    func pathsAsTyped() async throws {
        let session = try await Session()
        let result = try await session.run(
            ["show-image", "assets/comics/cat-judge.png"], in: URL(fileURLWithPath: "/tmp"))
        #expect(
            result.status == 2
                && result.stderr == "storefront: assets/comics/cat-judge.png: cannot be read (no such file)\n",
            "\(result)")
    }

    @Test("scenario play: a missing file is said before the terminal; a shipped one is found by name from /")
    func scenarioPlay() async throws {
        let session = try await Session()
        let missing = try await session.run(["scenario", "play", "nope.scenario"], in: URL(fileURLWithPath: "/"))
        #expect(
            missing.status == 2 && missing.stderr.contains("nope.scenario") && missing.stderr.contains("no such file"),
            "\(missing)")
        #expect(!missing.stderr.contains("terminal"), "\(missing)")
        // Found (by name, from /): only then is the missing terminal the problem.
        let shipped = try await session.run(["scenario", "play", "in-app-rage"], in: URL(fileURLWithPath: "/"))
        #expect(shipped.status == 1 && shipped.stderr.contains("needs a terminal"), "\(shipped)")
        let checked = try await session.run(
            ["scenario", "check", "in-app-rage", "selfies/win-back"], in: URL(fileURLWithPath: "/"))
        #expect(
            checked.status == 0 && checked.stdout.contains("in-app-rage.scenario\n")
                && checked.stdout.contains("win-back.scenario\n"), "\(checked)")
    }

    @Test("scenario list names every shipped scenario with its one-line story")
    func scenarioList() async throws {
        let session = try await Session()
        let result = try await session.run(["scenario", "list"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count >= 19, "\(result.stdout)")
        #expect(
            lines.contains { $0.hasPrefix("in-app-rage ") && $0.hasSuffix("renew with 6, random comics.") },
            "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("selfies/win-back ") }, "\(result.stdout)")
    }

    @Test(
        "each subcommand's --help lists only the options it uses",
        arguments: [
            ["scenario", "play"], ["scenario", "check"], ["scenario", "list"], ["catalog", "check"],
        ])
    func help(_ command: [String]) async throws {
        let session = try await Session()
        let result = try await session.run(command + ["--help"])
        #expect(result.status == 0, "\(result)")
        for unused in ["--state-dir", "--device", "--user", "--outcome", "--clock", "--server"] {
            #expect(!result.stdout.contains(unused), "\(command) --help lists \(unused)")
        }
        #expect(result.stdout.contains("--catalog"), "\(result.stdout)")
    }
}
