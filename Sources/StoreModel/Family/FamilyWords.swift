// The words `family share` and `family consent` take, on the command line and in a scenario: one
// list each, read the same way (without regard to case) by both.

/// A word from a short list.
public protocol FamilyWord: RawRepresentable<String>, CaseIterable {}

extension FamilyWord {
    public init?(word: String) { self.init(rawValue: word.lowercased()) }
    /// "on or off", "withdraw or give": what to say when another word is given.
    public static var choices: String { allCases.map(\.rawValue).joined(separator: " or ") }
}

/// `family share PRODUCT on|off`: Share with Family turned on or off.
public enum SharingWord: String, FamilyWord, Sendable {
    case on, off
}

/// `family consent MEMBER withdraw|give`: the organizer withdraws consent, or gives it again.
public enum ConsentWord: String, FamilyWord, Sendable {
    case withdraw, give
}
