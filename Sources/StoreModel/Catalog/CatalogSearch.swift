// Finding the product a person named: its id or its title, and "did you mean" when neither is
// there but one is close.
import Foundation

extension Catalog {
    /// The product a person named: its id, else its title in any case (as scenarios and the
    /// screen's users know it).
    public func product(named name: String) -> Product? {
        if let product = product(name) { return product }
        let lowered = name.lowercased()
        return products.first { $0.title.lowercased() == lowered }
    }

    /// The product named by id or title, or an error that suggests one only when it is close:
    /// the one title that what was typed is part of (from the start of a word: `6 months` suggests
    /// 6 Months of Comics), else the one id it ends, else the id or title fewest edits away, if
    /// that is a typo's worth (at most 3 edits, and a quarter of what was typed):
    /// `com.storefront.comic.nope` suggests nothing, `night shfit` suggests Night Shift.
    public func require(_ name: String) throws(StoreError) -> Product {
        if let product = product(named: name) { return product }
        let lowered = name.lowercased()
        // Part of one title, from the start of one of its words: `6 months`, `coffee`.
        let partOf = products.filter { product in
            let title = product.title.lowercased()
            return lowered.count >= 3
                && title.ranges(of: lowered).contains {
                    $0.lowerBound == title.startIndex || title[title.index(before: $0.lowerBound)] == " "
                }
        }
        if partOf.count == 1 { throw StoreError.unknownProduct(name, suggestion: partOf[0].title) }
        let endings = products.filter { $0.id.lowercased().hasSuffix(lowered) && lowered.count >= 4 }
        if endings.count == 1 { throw StoreError.unknownProduct(name, suggestion: endings[0].id) }
        let scored = products.map { product in
            (
                product,
                min(editDistance(product.id.lowercased(), lowered), editDistance(product.title.lowercased(), lowered))
            )
        }
        let nearest = scored.min { $0.1 < $1.1 }
        let close = nearest.flatMap { $0.1 <= min(3, max(1, lowered.count / 4)) ? $0.0 : nil }
        throw StoreError.unknownProduct(name, suggestion: close?.id)
    }
}

/// Levenshtein distance, for "did you mean" on a mistyped product id or subcommand.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    var row = Array(0...b.count)
    for i in 1...a.count {
        var previous = row[0]
        row[0] = i
        for j in stride(from: 1, through: b.count, by: 1) {
            let saved = row[j]
            row[j] = a[i - 1] == b[j - 1] ? previous : min(previous, row[j], row[j - 1]) + 1
            previous = saved
        }
    }
    return row[b.count]
}
