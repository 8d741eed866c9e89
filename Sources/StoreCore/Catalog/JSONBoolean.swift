// JSONSerialization hands numbers back as NSNumber, and `true` and `false` are NSNumbers too: on
// Linux `is Bool` holds for NSNumber(1). Booleans come as a class of their own (__NSCFBoolean),
// told apart here by the class's identity. Printing the type's name and reading it, as before,
// cost a scan of every protocol conformance in the program for each value read.
import Foundation

enum JSONBoolean {
    private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true) as Any))

    /// Whether a value JSONSerialization gave is `true` or `false`, not a number.
    static func holds(_ value: Any) -> Bool { ObjectIdentifier(type(of: value)) == booleanClass }
}
