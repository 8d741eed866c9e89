// What a test needs beyond the toolchain, as Swift Testing tags, and the quick run that leaves
// those tests out: `scripts/test --fast` sets STOREFRONT_FAST_TESTS=1, and every test or suite
// tagged with one of them is skipped, saying why (`.notInFastRun`). `.ci/run` sets nothing and
// runs every test. A static release build (the benchmark's, scripts/bench-before-after) has no
// Testing module: there the tags are left out, and nothing that uses them is built.
#if canImport(Testing)
    import Foundation
    import Testing

    extension Tag {
        /// Drives the real screen in tmux.
        @Tag public static var tmux: Self
        /// Needs a PostgreSQL cluster (`scripts/postgres-start`).
        @Tag public static var postgres: Self
        /// Runs Python: Apple's app-store-server-library or inapppy from `.venv`, or a helper in Tests/Python.
        @Tag public static var python: Self
        /// Takes long on two cores: storms, soaks, walks of every crash point or subcommand.
        @Tag public static var slow: Self
    }

    extension Trait where Self == ConditionTrait {
        /// Skipped by `scripts/test --fast`; given beside the tags that say why.
        public static var notInFastRun: Self {
            .disabled(
                if: ProcessInfo.processInfo.environment["STOREFRONT_FAST_TESTS"] == "1",
                "scripts/test --fast leaves out what needs PostgreSQL, Python or tmux, or takes long")
        }
    }
#endif
