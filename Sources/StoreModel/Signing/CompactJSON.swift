// JSON and base64url written straight to bytes, keys sorted: what every JWS the store signs is
// made of. Foundation's JSONSerialization and base64 string round trips cost thirty times a P-256
// signature here (storefront-bench), for objects whose every value is a string, a whole number,
// a boolean, an array or another object.
import Foundation

package enum CompactJSON {
    package static func encode(_ value: Any) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        write(value, into: &out)
        return out
    }

    private static func write(_ value: Any, into out: inout [UInt8]) {
        switch value {
        case let text as String: string(text, into: &out)
        // Foundation's JSONSerialization reads 0 and 1 as NSNumbers that also cast to Bool: only
        // a Swift Bool, or an NSNumber made from one, is written as a boolean (N9: counts are
        // integers, never booleans).
        case let flag as Bool where isBoolean(value): out += flag ? Array("true".utf8) : Array("false".utf8)
        case let number as Int where type(of: value) == Int.self: out += Array(String(number).utf8)
        case let number as Int64 where type(of: value) == Int64.self: out += Array(String(number).utf8)
        case let object as [String: Any]:
            out.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                string(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(object[key]!, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case let array as [Any]:
            out.append(UInt8(ascii: "["))
            for (index, element) in array.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let number as NSNumber: out += Array(number.stringValue.utf8)
        default: out += Array("null".utf8)
        }
    }

    /// True for a Swift Bool and for Foundation's boolean NSNumber (objCType "c"), false for a
    /// number that happens to be 0 or 1. Every reader of JSONSerialization's output that tells a
    /// boolean from a number asks this, so that `"failedCount": true` is never a count of 1. It
    /// compares types and reads the number's type code, never printing a type's name (which would
    /// search every protocol conformance of the program).
    package static func isBoolean(_ value: Any) -> Bool {
        if type(of: value) == Bool.self { return true }
        guard let number = value as? NSNumber, type(of: value) != Int.self, type(of: value) != Int64.self,
            type(of: value) != Double.self
        else { return false }
        return String(cString: number.objCType) == "c"
    }

    private static func string(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: out += Array(String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Without padding, as JWS wants it.
    package static func encode(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            out += [
                alphabet[Int(chunk >> 18 & 63)], alphabet[Int(chunk >> 12 & 63)], alphabet[Int(chunk >> 6 & 63)],
                alphabet[Int(chunk & 63)],
            ]
            index += 3
        }
        let rest = input.count - index
        if rest == 1 {
            let chunk = UInt32(input[index]) << 16
            out += [alphabet[Int(chunk >> 18 & 63)], alphabet[Int(chunk >> 12 & 63)]]
        } else if rest == 2 {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            out += [alphabet[Int(chunk >> 18 & 63)], alphabet[Int(chunk >> 12 & 63)], alphabet[Int(chunk >> 6 & 63)]]
        }
        return out
    }
}
