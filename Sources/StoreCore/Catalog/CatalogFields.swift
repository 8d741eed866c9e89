// Typed reads of one object of a catalog file, through Codable, with errors in a catalog author's
// words: each names its entry, made from the decoder's coding path ("products[3] \"comic.x\"
// introOffer"), and what is wrong with the field ("\"quantity\" must be a whole number").
import Foundation
import StoreModel

/// Any key of a JSON object: a catalog's objects are read field by field, and their unknown keys
/// warned about.
struct CatalogKey: CodingKey, Hashable {
    let stringValue: String
    let intValue: Int?

    init(_ name: String) {
        stringValue = name
        intValue = nil
    }

    init?(stringValue: String) { self.init(stringValue) }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension CodingUserInfoKey {
    /// The catalog file's name, which every error of its decoding starts with.
    static let catalogFile = CodingUserInfoKey(rawValue: "storefront.catalogFile")!
}

/// One object of the catalog, read field by field.
struct CatalogFields {
    let container: KeyedDecodingContainer<CatalogKey>
    let file: String
    /// The product the object belongs to, once its id is known: the entry names it.
    let productID: String?

    init(_ container: KeyedDecodingContainer<CatalogKey>, file: String, productID: String? = nil) {
        self.container = container
        self.file = file
        self.productID = productID
    }

    /// The entry the coding path names, as a catalog author reads it: "products[3] \"comic.x\"
    /// promotionalOffers[0]"; nil for the file's top level.
    var entry: String? { Self.entry(container.codingPath, productID: productID) }

    static func entry(_ path: [any CodingKey], productID: String?) -> String? {
        var text = ""
        var named = false
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
                if let productID, !named {
                    text += " \"\(productID)\""
                    named = true
                }
            } else {
                text += (text.isEmpty ? "" : " ") + key.stringValue
            }
        }
        return text.isEmpty ? nil : text
    }

    func error(_ message: String) -> CatalogError { CatalogError(file: file, entry: entry, message: message) }

    /// The keys the object has, sorted.
    var keys: [String] { container.allKeys.map(\.stringValue).sorted() }

    /// The key is there, even as null.
    func has(_ key: String) -> Bool { container.contains(CatalogKey(key)) }

    /// The key is there with a value other than null.
    func hasValue(_ key: String) -> Bool {
        has(key) && !((try? container.decodeNil(forKey: CatalogKey(key))) ?? true)
    }

    func string(_ key: String) throws(CatalogError) -> String? {
        do { return try container.decodeIfPresent(String.self, forKey: CatalogKey(key)) } catch {
            throw self.error("\"\(key)\" must be a string")
        }
    }

    func integer(_ key: String) throws(CatalogError) -> Int? {
        guard hasValue(key) else { return nil }
        if let whole = try? container.decode(Int.self, forKey: CatalogKey(key)), abs(whole) < 1_000_000_000 {
            return whole
        }
        // A whole number written with a fraction (5.0), as JSON allows; never a boolean.
        if (try? container.decode(Bool.self, forKey: CatalogKey(key))) == nil,
            let number = try? container.decode(Double.self, forKey: CatalogKey(key)), number.rounded() == number,
            abs(number) < 1e9
        {
            return Int(number)
        }
        throw error("\"\(key)\" must be a whole number")
    }

    /// Prices are strings ("0.99") so they stay exact; a JSON number is refused with advice.
    func priceText(key: String = "price") throws(CatalogError) -> String? {
        guard hasValue(key) else { return nil }
        guard let text = try? container.decode(String.self, forKey: CatalogKey(key)) else {
            throw error("\(key) must be a string such as \"0.99\" (a JSON number is not exact)")
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    func boolean(_ key: String) -> Bool? { try? container.decode(Bool.self, forKey: CatalogKey(key)) }

    /// A list of strings, or nil when the key is absent or null; `message` when it is something else.
    func strings(_ key: String, message: String) throws(CatalogError) -> [String]? {
        guard hasValue(key) else { return nil }
        guard let list = try? container.decode([String].self, forKey: CatalogKey(key)) else { throw error(message) }
        return list
    }

    func integers(_ key: String) -> [Int]? { try? container.decode([Int].self, forKey: CatalogKey(key)) }

    /// The object under `key`, or nil when absent or null; `message` when it is not an object.
    func object(_ key: String, message: String) throws(CatalogError) -> CatalogFields? {
        guard hasValue(key) else { return nil }
        guard let nested = try? container.nestedContainer(keyedBy: CatalogKey.self, forKey: CatalogKey(key)) else {
            throw error(message)
        }
        return CatalogFields(nested, file: file, productID: productID)
    }

    /// The objects of the list under `key`, or nil when absent or null; `message` when it is not a
    /// list of objects.
    func objects(_ key: String, message: String) throws(CatalogError) -> [CatalogFields]? {
        guard hasValue(key) else { return nil }
        guard var list = try? container.nestedUnkeyedContainer(forKey: CatalogKey(key)) else { throw error(message) }
        var objects: [CatalogFields] = []
        while !list.isAtEnd {
            guard let nested = try? list.nestedContainer(keyedBy: CatalogKey.self) else { throw error(message) }
            objects.append(CatalogFields(nested, file: file, productID: productID))
        }
        return objects
    }
}
