// An Encodable value as the plain tree CompactJSON writes: String, Int, Int64, Bool, [Any] and
// [String: Any]. The signed payloads are declared as Codable structs (Payloads.swift) and written
// through this, not JSONEncoder: JSONEncoder's Data, then bytes, cost as much as the signature.
// A nil optional is left out, as the synthesized Encodable leaves it.
import Foundation

package enum PayloadFields {
    /// The fields of a value that encodes as a keyed object ([:] for one that encodes nothing).
    package static func object(_ value: some Encodable) throws -> [String: Any] {
        try tree(value) as? [String: Any] ?? [:]
    }

    /// `value` as `CompactJSON` writes it: keys sorted, a nil optional left out. The values the
    /// store writes (strings, integers, booleans, lists and structs of them) cannot fail to encode;
    /// one that does is written as `{}`.
    package static func compactJSON(_ value: some Encodable) -> [UInt8] {
        CompactJSON.encode((try? tree(value)) ?? [String: String]())
    }

    package static func tree(_ value: some Encodable) throws -> Any {
        switch value {
        case let text as String: return text
        case let flag as Bool: return flag
        case let number as Int: return number
        case let number as Int64: return number
        default:
            let encoder = TreeEncoder(codingPath: [])
            try value.encode(to: encoder)
            return encoder.node.plain
        }
    }

    /// What a container writes into, read out as plain values once the value is encoded. Fields
    /// and items are kept in place, so a struct of n fields costs n insertions, not n copies.
    final class Node {
        enum Kind { case empty, value, object, array }

        var kind = Kind.empty
        var value: Any = NSNull()
        var fields: [String: Node] = [:]
        var items: [Node] = []

        var plain: Any {
            switch kind {
            case .empty: [String: Any]()
            case .value: value
            case .object: fields.mapValues(\.plain)
            case .array: items.map(\.plain)
            }
        }

        func put(_ value: Any) {
            kind = .value
            self.value = value
        }

        func field(_ key: String) -> Node {
            kind = .object
            let node = Node()
            fields[key] = node
            return node
        }

        func appended() -> Node {
            kind = .array
            let node = Node()
            items.append(node)
            return node
        }

        var count: Int { items.count }

        func set(_ value: some Encodable, codingPath: [any CodingKey]) throws {
            switch value {
            case let text as String: put(text)
            case let flag as Bool: put(flag)
            case let number as Int: put(number)
            case let number as Int64: put(number)
            default: try value.encode(to: TreeEncoder(codingPath: codingPath, node: self))
            }
        }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(stringValue: String) { self.stringValue = stringValue }
        init(intValue: Int) {
            stringValue = String(intValue)
            self.intValue = intValue
        }
    }

    final class TreeEncoder: Encoder, SingleValueEncodingContainer {
        let codingPath: [any CodingKey]
        let node: Node
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        init(codingPath: [any CodingKey], node: Node = Node()) {
            self.codingPath = codingPath
            self.node = node
        }

        func container<K: CodingKey>(keyedBy type: K.Type) -> KeyedEncodingContainer<K> {
            if node.kind == .empty { node.kind = .object }
            return KeyedEncodingContainer(Keyed<K>(codingPath: codingPath, node: node))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if node.kind == .empty { node.kind = .array }
            return Unkeyed(codingPath: codingPath, node: node)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { self }

        func encodeNil() throws { node.put(NSNull()) }
        func encode(_ value: some Encodable) throws { try node.set(value, codingPath: codingPath) }
        func encode(_ value: Bool) throws { node.put(value) }
        func encode(_ value: String) throws { node.put(value) }
        func encode(_ value: Double) throws { node.put(value) }
        func encode(_ value: Float) throws { node.put(Double(value)) }
        func encode(_ value: Int) throws { node.put(value) }
        func encode(_ value: Int8) throws { node.put(Int(value)) }
        func encode(_ value: Int16) throws { node.put(Int(value)) }
        func encode(_ value: Int32) throws { node.put(Int(value)) }
        func encode(_ value: Int64) throws { node.put(value) }
        func encode(_ value: UInt) throws { node.put(Int64(value)) }
        func encode(_ value: UInt8) throws { node.put(Int(value)) }
        func encode(_ value: UInt16) throws { node.put(Int(value)) }
        func encode(_ value: UInt32) throws { node.put(Int64(value)) }
        func encode(_ value: UInt64) throws { node.put(Int64(value)) }
    }

    struct Keyed<K: CodingKey>: KeyedEncodingContainerProtocol {
        let codingPath: [any CodingKey]
        let node: Node

        func encodeNil(forKey key: K) throws { node.field(key.stringValue).put(NSNull()) }
        func encode(_ value: some Encodable, forKey key: K) throws {
            try node.field(key.stringValue).set(value, codingPath: codingPath + [key])
        }

        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: K) -> KeyedEncodingContainer<N> {
            TreeEncoder(codingPath: codingPath + [key], node: node.field(key.stringValue)).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: K) -> any UnkeyedEncodingContainer {
            TreeEncoder(codingPath: codingPath + [key], node: node.field(key.stringValue)).unkeyedContainer()
        }

        func superEncoder() -> any Encoder { TreeEncoder(codingPath: codingPath, node: node.field("super")) }
        func superEncoder(forKey key: K) -> any Encoder {
            TreeEncoder(codingPath: codingPath + [key], node: node.field(key.stringValue))
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let codingPath: [any CodingKey]
        let node: Node
        var count: Int { node.count }

        func encodeNil() throws { node.appended().put(NSNull()) }
        func encode(_ value: some Encodable) throws {
            try node.appended().set(value, codingPath: codingPath + [Key(intValue: count)])
        }

        func nestedContainer<N: CodingKey>(keyedBy type: N.Type) -> KeyedEncodingContainer<N> {
            TreeEncoder(codingPath: codingPath + [Key(intValue: count)], node: node.appended()).container(keyedBy: type)
        }

        func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            TreeEncoder(codingPath: codingPath + [Key(intValue: count)], node: node.appended()).unkeyedContainer()
        }

        func superEncoder() -> any Encoder {
            TreeEncoder(codingPath: codingPath + [Key(intValue: count)], node: node.appended())
        }
    }
}
