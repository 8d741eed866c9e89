// The one encoder of the command line's `--json` outputs: an `Encodable` output type becomes a
// `JSON` value, which `JSON.rendered` writes. Two things JSONEncoder does not do, and the outputs'
// contract (docs/command-line.md) needs: keys in the order the type declares them, and a nil
// optional written as an explicit null. A field that is left out when it has no value says so
// with `Omitted`; another type's fields written among a type's own, with `Inline`.
import Foundation

enum OutputEncoder {
    /// `value` as the JSON it is written as.
    static func encode(_ value: some Encodable) -> JSON {
        let slot = Slot()
        do {
            try value.encode(to: SlotEncoder(slot: slot, codingPath: []))
        } catch {
            // Output types hold strings, numbers, booleans, JSON values and other output types,
            // none of which throws: a type that does is a programming error.
            preconditionFailure("an output type could not be encoded: \(error)")
        }
        return slot.json
    }
}

extension JSON: Encodable {
    /// A JSON value inside an output type (a date as `Context.formatDate` writes it) is written as
    /// it is.
    func encode(to encoder: any Encoder) throws {
        guard let encoder = encoder as? SlotEncoder else {
            throw EncodingError.invalidValue(
                self, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "only OutputEncoder"))
        }
        encoder.slot.value = self
    }
}

/// `policy` and `refund-request policy`: `{"policy": …}`.
struct PolicyOutput: Encodable {
    var policy: String
}

/// A dictionary written as an object, its keys in sorted order.
struct SortedFields<Value: Encodable>: Encodable {
    var dictionary: [String: Value]

    init(_ dictionary: [String: Value]) { self.dictionary = dictionary }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            try container.encode(value, forKey: Key(stringValue: key))
        }
    }
}

/// A field written only when it has a value (`"revoked": true` on a refunded purchase alone).
struct Omitted<Value: Encodable>: Encodable {
    var value: Value?

    init(_ value: Value?) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// Another output type whose fields are written among the fields of the type that holds it, where
/// it stands (a product's plan terms, a receipt line's plan fields); nothing when it has no value.
struct Inline<Value: Encodable>: Encodable {
    var value: Value?

    init(_ value: Value?) { self.value = value }

    func encode(to encoder: any Encoder) throws { try value?.encode(to: encoder) }
}

/// What an `Inline` field gives its container: its fields, to write among the container's own.
private protocol InlineFields {
    func encodeFields(to encoder: any Encoder) throws
}

extension Inline: InlineFields {
    fileprivate func encodeFields(to encoder: any Encoder) throws { try value?.encode(to: encoder) }
}

/// What an `Omitted` field with no value tells its container.
private protocol OmittedWhenNil {
    var isNil: Bool { get }
}

extension Omitted: OmittedWhenNil {
    fileprivate var isNil: Bool { value == nil }
}

/// Where one value is written: a plain value, an object's fields in order, or an array's items.
private final class Slot {
    var value: JSON = .null
    var fields: [(String, Slot)]?
    var items: [Slot]?

    var json: JSON {
        if let fields { return .object(fields.map { ($0.0, $0.1.json) }) }
        if let items { return .array(items.map(\.json)) }
        return value
    }

    /// Writes `value` here: the primitives the outputs use directly, anything else through its
    /// own `encode(to:)`.
    func write(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        switch value {
        case let text as String: self.value = .string(text)
        case let flag as Bool: self.value = .bool(flag)
        case let number as Int: self.value = .int(number)
        // A Double would encode itself through this container again, without end: the outputs write
        // a date as ISO 8601 text (`Context.isoText`) and a price as text.
        case is Double, is Float, is Date:
            preconditionFailure("an output type holds a \(type(of: value)) at \(codingPath.map(\.stringValue))")
        default: try value.encode(to: SlotEncoder(slot: self, codingPath: codingPath))
        }
    }
}

private struct SlotEncoder: Encoder {
    let slot: Slot
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if slot.fields == nil { slot.fields = [] }
        return KeyedEncodingContainer(Keyed<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if slot.items == nil { slot.items = [] }
        return Unkeyed(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(slot: slot, codingPath: codingPath) }
}

private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    var codingPath: [any CodingKey]

    private func field(_ key: Key) -> Slot {
        let field = Slot()
        slot.fields?.append((key.stringValue, field))
        return field
    }

    mutating func encodeNil(forKey key: Key) throws { _ = field(key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let omitted = value as? any OmittedWhenNil, omitted.isNil { return }
        if let inline = value as? any InlineFields {
            try inline.encodeFields(to: SlotEncoder(slot: slot, codingPath: codingPath))
            return
        }
        try field(key).write(value, codingPath: codingPath + [key])
    }

    // A nil optional is an explicit null, not a missing key.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        SlotEncoder(slot: field(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        SlotEncoder(slot: field(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { SlotEncoder(slot: slot, codingPath: codingPath) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        SlotEncoder(slot: field(key), codingPath: codingPath + [key])
    }
}

private struct Unkeyed: UnkeyedEncodingContainer {
    let slot: Slot
    var codingPath: [any CodingKey]
    var count: Int { slot.items?.count ?? 0 }

    private func item() -> Slot {
        let item = Slot()
        slot.items?.append(item)
        return item
    }

    mutating func encodeNil() throws { _ = item() }

    mutating func encode<T: Encodable>(_ value: T) throws { try item().write(value, codingPath: codingPath) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        SlotEncoder(slot: item(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        SlotEncoder(slot: item(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { SlotEncoder(slot: item(), codingPath: codingPath) }
}

private struct Single: SingleValueEncodingContainer {
    let slot: Slot
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws { slot.value = .null }

    mutating func encode<T: Encodable>(_ value: T) throws { try slot.write(value, codingPath: codingPath) }
}
