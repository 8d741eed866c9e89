// The JSON the command line writes for scripts, and how it is written: two-space indents, keys in
// the order the output type declares them, explicit nulls (`{"user": null}`). Output types become
// this value through `OutputEncoder`; JSONEncoder's writer keeps no such order.
import Foundation

enum JSON: Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    static func == (lhs: JSON, rhs: JSON) -> Bool { lhs.rendered() == rhs.rendered() }

    func rendered(indent: Int = 0) -> String {
        let pad = String(repeating: "  ", count: indent + 1)
        let close = String(repeating: "  ", count: indent)
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .string(let value): return Self.quote(value)
        case .array(let items):
            if items.isEmpty { return "[]" }
            return "[\n" + items.map { pad + $0.rendered(indent: indent + 1) }.joined(separator: ",\n") + "\n\(close)]"
        case .object(let fields):
            if fields.isEmpty { return "{}" }
            let lines = fields.map { pad + Self.quote($0.0) + ": " + $0.1.rendered(indent: indent + 1) }
            return "{\n" + lines.joined(separator: ",\n") + "\n\(close)}"
        }
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20: out += String(format: "\\u%04x", s.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
