// The account server's tables in PostgreSQL (W5), as versions applied once each, in order.
import Foundation
import PostgresNIO
import StoreCore
import StoreModel

extension PostgresAccountServer {
    /// The schema's versions, each a name kept in `storefrontMigration` once applied and its
    /// statements, whole, in order.
    static let migrations: [(name: String, statements: [String])] = [
        (
            "v1",
            [
                """
                CREATE TABLE account (
                    name TEXT PRIMARY KEY,
                    nameKey TEXT NOT NULL UNIQUE,
                    passwordHash TEXT NOT NULL,
                    createdAt DOUBLE PRECISION NOT NULL
                )
                """,
                """
                CREATE TABLE receipt (
                    transactionID TEXT PRIMARY KEY,
                    sequence BIGSERIAL NOT NULL UNIQUE,
                    accountKey TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    purchaseDate DOUBLE PRECISION NOT NULL,
                    extendsExpiry BOOLEAN NOT NULL,
                    entry TEXT NOT NULL
                )
                """,
                "CREATE INDEX receiptByAccount ON receipt (accountKey, purchaseDate, transactionID)",
                "CREATE TABLE subscription (accountKey TEXT PRIMARY KEY, expiry DOUBLE PRECISION NOT NULL)",
                """
                CREATE TABLE plan (
                    accountKey TEXT NOT NULL,
                    account TEXT NOT NULL,
                    groupID TEXT NOT NULL,
                    state TEXT NOT NULL,
                    PRIMARY KEY (accountKey, groupID)
                )
                """,
                "CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                """
                CREATE TABLE notification (
                    uuid TEXT PRIMARY KEY,
                    sequence BIGSERIAL NOT NULL UNIQUE,
                    eventKey TEXT NOT NULL UNIQUE,
                    accountKey TEXT NOT NULL,
                    state TEXT NOT NULL,
                    nextAttemptAt DOUBLE PRECISION,
                    value TEXT NOT NULL
                )
                """,
                "CREATE TABLE request (sequence BIGSERIAL PRIMARY KEY, value TEXT NOT NULL)",
                """
                CREATE TABLE session (
                    tokenHash TEXT PRIMARY KEY,
                    account TEXT NOT NULL REFERENCES account (name),
                    device TEXT NOT NULL,
                    createdAt DOUBLE PRECISION NOT NULL,
                    revokedAt DOUBLE PRECISION
                )
                """,
            ]
        ),
        (
            "v2: claims",
            [
                """
                CREATE TABLE claim (
                    key TEXT NOT NULL,
                    accountKey TEXT NOT NULL,
                    at DOUBLE PRECISION NOT NULL,
                    PRIMARY KEY (key, accountKey)
                )
                """,
                "CREATE TABLE offerCode (code TEXT PRIMARY KEY, value TEXT NOT NULL)",
            ]
        ),
        // O7: refunds of any purchase reach devices with the plan lines; the event says which.
        ("v3: receipt events", ["ALTER TABLE receipt ADD COLUMN event TEXT NOT NULL DEFAULT 'purchase'"]),
        ("v4: change counts", changeCounts),
        // Offer codes are case-insensitive: one spelling of each in the claims.
        ("v5: offer-code claims in one spelling", ClaimKey.mergeSpellingsSQL(accountColumn: "accountKey")),
        // Sessions stand for their account for a time the developer sets (real time).
        // Sessions made before expire after the default lifetime from now: none lives forever.
        (
            "v6: sessions expire",
            [
                "ALTER TABLE session ADD COLUMN expiresAt DOUBLE PRECISION",
                "UPDATE session SET expiresAt = extract(epoch from now()) + \(Int(DeviceSessionInfo.defaultLifetime))",
            ]
        ),
        // W17: a device that signed in before holds a token the account's sign-in budget exempts.
        (
            "v7: device tokens",
            [
                """
                CREATE TABLE deviceToken (
                    tokenHash TEXT PRIMARY KEY,
                    account TEXT NOT NULL REFERENCES account (name),
                    device TEXT NOT NULL,
                    createdAt DOUBLE PRECISION NOT NULL,
                    expiresAt DOUBLE PRECISION NOT NULL,
                    revokedAt DOUBLE PRECISION
                )
                """,
                "CREATE INDEX deviceTokenByAccount ON deviceToken (account, device)",
            ]
        ),
        // W18: each account keeps the app transaction id it was minted (`migrate` gives accounts
        // made before the one their name gave them, since it was signed already).
        ("v8: app transaction ids", ["ALTER TABLE account ADD COLUMN appTransactionID TEXT UNIQUE"]),
    ]

    /// Each table that counts its changes, with the column holding its account's key (nil: the
    /// shared scope ''), as the embedded server's `countedTables`.
    static let countedTables: [(table: String, account: String?)] = [
        ("account", "namekey"), ("receipt", "accountkey"), ("subscription", "accountkey"), ("plan", "accountkey"),
        ("claim", "accountkey"),
        ("setting", nil), ("offercode", nil),
    ]

    /// Tables whose writes no kept answer reads: the outbox, the request log, device sessions.
    static let uncountedTables = [
        "notification", "request", "session", "devicetoken", "storefrontmigration", "changecount",
    ]

    /// The counts of changes by scope and the triggers that keep them (one function; its argument
    /// names the account's column, none for the shared scope).
    static var changeCounts: [String] {
        [
            "CREATE TABLE changeCount (scope TEXT PRIMARY KEY, count BIGINT NOT NULL)",
            """
            CREATE FUNCTION storefrontCountChange() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_NARGS = 0 THEN
                    INSERT INTO changeCount VALUES ('', 1) ON CONFLICT (scope) DO UPDATE SET count = changeCount.count + 1;
                    RETURN NULL;
                END IF;
                IF TG_OP <> 'DELETE' THEN
                    INSERT INTO changeCount VALUES (to_jsonb(NEW) ->> TG_ARGV[0], 1) ON CONFLICT (scope) DO UPDATE SET count = changeCount.count + 1;
                END IF;
                IF TG_OP <> 'INSERT' THEN
                    INSERT INTO changeCount VALUES (to_jsonb(OLD) ->> TG_ARGV[0], 1) ON CONFLICT (scope) DO UPDATE SET count = changeCount.count + 1;
                END IF;
                RETURN NULL;
            END $$
            """,
        ]
            + countedTables.map { table, account in
                "CREATE TRIGGER \(table)Counted AFTER INSERT OR UPDATE OR DELETE ON \(table) FOR EACH ROW EXECUTE FUNCTION storefrontCountChange(\(account.map { "'\($0)'" } ?? ""))"
            }
    }

    /// Applies the migrations not applied yet, each in the one transaction that records it, one
    /// server at a time (an advisory lock).
    func migrate() throws(StoreError) {
        try transaction { connection in
            try query(connection, "SELECT pg_advisory_xact_lock(7305815)")
            try query(connection, "CREATE TABLE IF NOT EXISTS storefrontMigration (name TEXT PRIMARY KEY)")
            let done = Set(
                try query(connection, "SELECT name FROM storefrontMigration").compactMap { Self.string($0, "name") })
            for migration in Self.migrations where !done.contains(migration.name) {
                for statement in migration.statements { try query(connection, PostgresQuery(unsafeSQL: statement)) }
                try query(connection, "INSERT INTO storefrontMigration (name) VALUES (\(migration.name))")
            }
            for row in try query(connection, "SELECT name FROM account WHERE appTransactionID IS NULL") {
                guard let name = Self.string(row, "name") else { continue }
                try query(
                    connection,
                    "UPDATE account SET appTransactionID = \(SignedUnits.legacyAppTransactionID(name)) WHERE name = \(name)"
                )
            }
        }
    }
}
