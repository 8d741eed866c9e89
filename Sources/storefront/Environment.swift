// The environment variables the program reads, read once at start: one place says which there are.
import Foundation

struct Environment {
    let values: [String: String]

    static let current = Environment(values: ProcessInfo.processInfo.environment)

    /// A variable that is set and not empty.
    func value(_ name: String) -> String? { values[name].flatMap { $0.isEmpty ? nil : $0 } }

    var stateDirectory: String? { value("STOREFRONT_STATE_DIR") }
    var xdgStateHome: String? { value("XDG_STATE_HOME") }
    var home: String? { value("HOME") }
    var catalog: String? { value("STOREFRONT_CATALOG") }
    var assets: String? { value("STOREFRONT_ASSETS") }
    /// Fault injection: `crash-at:POINT` (`storefront crash-points` lists them).
    var fault: String? { value("STOREFRONT_FAULT") }
    /// Set, even empty, it is the password (an empty one is refused with its own message).
    var password: String? { values["STOREFRONT_PASSWORD"] }
    var terminalType: String { values["TERM"] ?? "" }
    var noColor: Bool { value("NO_COLOR") != nil }
    /// For the start-up benchmark: stop once the first full frame is drawn.
    var exitsAfterFirstFrame: Bool { values["STOREFRONT_EXIT_AFTER_FIRST_FRAME"] == "1" }
}
