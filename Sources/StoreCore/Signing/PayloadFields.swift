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

    static func tree(_ value: some Encodable) throws -> Any {
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

    /// What a container writes into, read out as plain values once the value is encoded.
    final class Node {
        enum Content {
            case empty
            case value(Any)
            case object([String: Node])
            case array([Node])
        }

        var content = Content.empty

        var plain: Any {
            switch content {
            case .empty: [String: Any]()
            case .value(let value): value
            case .object(let fields): fields.mapValues(\.plain)
            case .array(let items): items.map(\.plain)
            }
        }

        func field(_ key: String) -> Node {
            var fields: [String: Node] = [:]
            if case .object(let existing) = content { fields = existing }
            let node = Node()
            fields[key] = node
            content = .object(fields)
            return node
        }

        func appended() -> Node {
            var items: [Node] = []
            if case .array(let existing) = content { items = existing }
            let node = Node()
            items.append(node)
            content = .array(items)
            return node
        }

        var count: Int {
            if case .array(let items) = content { return items.count }
            return 0
        }

        func set(_ value: some Encodable, codingPath: [any CodingKey]) throws {
            switch value {
            case let text as String: content = .value(text)
            case let flag as Bool: content = .value(flag)
            case let number as Int: content = .value(number)
            case let number as Int64: content = .value(number)
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
            if case .empty = node.content { node.content = .object([:]) }
            return KeyedEncodingContainer(Keyed<K>(codingPath: codingPath, node: node))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if case .empty = node.content { node.content = .array([]) }
            return Unkeyed(codingPath: codingPath, node: node)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { self }

        func encodeNil() throws { node.content = .value(NSNull()) }
        func encode(_ value: some Encodable) throws { try node.set(value, codingPath: codingPath) }
        func encode(_ value: Bool) throws { node.content = .value(value) }
        func encode(_ value: String) throws { node.content = .value(value) }
        func encode(_ value: Double) throws { node.content = .value(value) }
        func encode(_ value: Float) throws { node.content = .value(Double(value)) }
        func encode(_ value: Int) throws { node.content = .value(value) }
        func encode(_ value: Int8) throws { node.content = .value(Int(value)) }
        func encode(_ value: Int16) throws { node.content = .value(Int(value)) }
        func encode(_ value: Int32) throws { node.content = .value(Int(value)) }
        func encode(_ value: Int64) throws { node.content = .value(value) }
        func encode(_ value: UInt) throws { node.content = .value(Int64(value)) }
        func encode(_ value: UInt8) throws { node.content = .value(Int(value)) }
        func encode(_ value: UInt16) throws { node.content = .value(Int(value)) }
        func encode(_ value: UInt32) throws { node.content = .value(Int64(value)) }
        func encode(_ value: UInt64) throws { node.content = .value(Int64(value)) }
    }

    struct Keyed<K: CodingKey>: KeyedEncodingContainerProtocol {
        let codingPath: [any CodingKey]
        let node: Node

        func encodeNil(forKey key: K) throws { node.field(key.stringValue).content = .value(NSNull()) }
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
        func superEncoder(forKey key: K) -> any Encoder { TreeEncoder(codingPath: codingPath + [key], node: node.field(key.stringValue)) }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let codingPath: [any CodingKey]
        let node: Node
        var count: Int { node.count }

        func encodeNil() throws { node.appended().content = .value(NSNull()) }
        func encode(_ value: some Encodable) throws {
            try node.appended().set(value, codingPath: codingPath + [Key(intValue: count)])
        }

        func nestedContainer<N: CodingKey>(keyedBy type: N.Type) -> KeyedEncodingContainer<N> {
            TreeEncoder(codingPath: codingPath + [Key(intValue: count)], node: node.appended()).container(keyedBy: type)
        }

        func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            TreeEncoder(codingPath: codingPath + [Key(intValue: count)], node: node.appended()).unkeyedContainer()
        }

        func superEncoder() -> any Encoder { TreeEncoder(codingPath: codingPath + [Key(intValue: count)], node: node.appended()) }
    }
}
