// The duration of a non-renewing subscription read from its id or names, when the catalog format
// has no field for it (a `.storekit` file; C6, R5): "pro.day.7", "3months", "1 Year", "Annual",
// "专业版7天使用许可", "1ヶ月", "12 Monate", "7 días", "1 an".
import Foundation
import StoreModel

enum DurationInference {
    /// The period stated in `id` or else in one of `names`, and where it was read.
    static func infer(id: String, names: [String]) -> (SubscriptionPeriod, String)? {
        let sources = [(id, "inferred from the id")] + names.map { ($0, "inferred from \"\($0)\"") }
        for (text, source) in sources {
            if let period = period(in: text) { return (period, source) }
        }
        return nil
    }

    /// Unit words by language, longest first within a unit so that "months" is tried before "mo".
    /// Latin-script words must end at a word boundary; CJK ones need not.
    static let units: [(words: [String], unit: SubscriptionPeriod.Unit)] = [
        // English, Spanish, German, French.
        (["days", "day", "d", "días", "dias", "día", "dia", "tage", "tagen", "tag", "jours", "jour", "j"], .day),
        (["weeks", "week", "wks", "wk", "w", "semanas", "semana", "wochen", "woche", "semaines", "semaine"], .week),
        (
            ["months", "month", "mths", "mth", "mos", "mo", "meses", "mes", "monate", "monaten", "monat", "mois"],
            .month
        ),
        (
            [
                "years", "year", "yrs", "yr", "y", "años", "anos", "año", "ano", "jahre", "jahren", "jahr", "années",
                "annees", "année", "annee", "ans", "an",
            ], .year
        ),
    ]

    /// CJK units follow the number directly: 7天, 1个月, 1ヶ月, 12か月, 1年, 2週間.
    static let cjkUnits: [(words: [String], unit: SubscriptionPeriod.Unit)] = [
        (["个月", "個月", "ヶ月", "ケ月", "か月", "カ月", "ヵ月", "月"], .month),
        (["週間", "星期", "周", "週"], .week),
        (["日間", "天", "日"], .day),
        (["年間", "年"], .year),
    ]

    /// Whole words for one period, in every language read; longer words before the words they
    /// contain ("semiannual" before "annual", "halbjährlich" before "jährlich").
    static let words: [(String, SubscriptionPeriod)] = [
        ("semiannual", SubscriptionPeriod(6, .month)), ("semi-annual", SubscriptionPeriod(6, .month)),
        ("halfyear", SubscriptionPeriod(6, .month)), ("half-year", SubscriptionPeriod(6, .month)),
        ("half year", SubscriptionPeriod(6, .month)),
        ("semestral", SubscriptionPeriod(6, .month)), ("semestriel", SubscriptionPeriod(6, .month)),
        ("halbjährlich", SubscriptionPeriod(6, .month)),
        ("半年", SubscriptionPeriod(6, .month)),
        ("quarterly", SubscriptionPeriod(3, .month)), ("trimestral", SubscriptionPeriod(3, .month)),
        ("trimestriel", SubscriptionPeriod(3, .month)),
        ("vierteljährlich", SubscriptionPeriod(3, .month)), ("季度", SubscriptionPeriod(3, .month)),
        ("季卡", SubscriptionPeriod(3, .month)),
        ("annual", .year), ("yearly", .year), ("anual", .year), ("annuel", .year), ("annuelle", .year),
        ("jährlich", .year),
        ("jahres", .year), ("年度", .year), ("年卡", .year), ("包年", .year), ("年額", .year), ("年間", .year),
        ("monthly", .month), ("mensual", .month), ("mensuel", .month), ("mensuelle", .month), ("monatlich", .month),
        ("月度", .month), ("月卡", .month), ("包月", .month), ("月額", .month),
        ("weekly", .week), ("semanal", .week), ("hebdomadaire", .week), ("wöchentlich", .week), ("周卡", .week),
        ("週額", .week),
        ("daily", SubscriptionPeriod(1, .day)), ("diario", SubscriptionPeriod(1, .day)),
        ("täglich", SubscriptionPeriod(1, .day)),
        ("quotidien", SubscriptionPeriod(1, .day)), ("日卡", SubscriptionPeriod(1, .day)),
    ]

    /// Chinese and Japanese numerals up to 99 as the names write them: 一, 两, 三, 十二.
    static func cjkNumber(_ text: Substring) -> Int? {
        let digits: [Character: Int] = [
            "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
        ]
        guard !text.isEmpty else { return nil }
        if let ten = text.firstIndex(of: "十") {
            let before = text[..<ten]
            let after = text[text.index(after: ten)...]
            let tens = before.isEmpty ? 1 : (before.count == 1 ? digits[before.first!] : nil)
            let ones = after.isEmpty ? 0 : (after.count == 1 ? digits[after.first!] : nil)
            guard let tens, let ones else { return nil }
            return tens * 10 + ones
        }
        guard text.count == 1 else { return nil }
        return digits[text.first!]
    }

    static func period(in text: String) -> SubscriptionPeriod? {
        let lower = text.lowercased()
        let characters = Array(lower)
        func isLetter(_ index: Int) -> Bool {
            index >= 0 && index < characters.count && characters[index].isLetter && characters[index].isASCII
                || index >= 0 && index < characters.count && "áéíóúñäöüßàâèêëîïôûç".contains(characters[index])
        }
        func isSeparator(_ character: Character) -> Bool {
            character == " " || character == "." || character == "_" || character == "-"
        }
        func make(_ count: Int, _ unit: SubscriptionPeriod.Unit) -> SubscriptionPeriod? {
            (1...999).contains(count) ? SubscriptionPeriod(count, unit) : nil
        }
        // A number then a unit: "3months", "6 Months", "7 días", "12 Monate", "7天", "1ヶ月", "三个月".
        var index = 0
        while index < characters.count {
            let start = index
            var count: Int?
            var end = index
            while end < characters.count, characters[end].isASCII, characters[end].isNumber { end += 1 }
            if end > start {
                count = Int(String(characters[start..<end]))
                // A number glued to letters before it ("v2", "p3") is a name, not a count.
                if isLetter(start - 1), !(start >= 1 && characters[start - 1] == "p") { count = nil }
            } else {
                while end < characters.count, "一二两兩三四五六七八九十".contains(characters[end]) { end += 1 }
                if end > start { count = cjkNumber(Substring(String(characters[start..<end]))) }
            }
            guard let number = count, end > start else {
                index += 1
                continue
            }
            var after = end
            while after < characters.count, isSeparator(characters[after]) { after += 1 }
            let rest = String(characters[after...])
            for (words, unit) in cjkUnits {
                for word in words where rest.hasPrefix(word) {
                    // 月 after a number is a month; 日 alone could be a date, so only 日間 or a plain day count.
                    if let period = make(number, unit) { return period }
                }
            }
            for (words, unit) in units {
                for word in words where rest.hasPrefix(word) && !isLetter(after + word.count) {
                    if let period = make(number, unit) { return period }
                }
            }
            index = end
        }
        // A unit then a number: "pro.day.7", "pro.month.1", "pass-week-2".
        for (words, unit) in units {
            for word in words where word.count >= 3 {
                let pattern =
                    "(?<![a-zà-ÿ])" + NSRegularExpression.escapedPattern(for: word) + "[ ._-]+([0-9]{1,3})(?![0-9])"
                if let match = lower.range(of: pattern, options: .regularExpression) {
                    let digits = lower[match].reversed().prefix { $0.isNumber }.reversed()
                    if let count = Int(String(digits)), let period = make(count, unit) { return period }
                }
            }
        }
        // One word for one period: "annual", "Monthly", "Trimestral", "年卡".
        for (word, period) in words {
            guard let range = lower.range(of: word) else { continue }
            let isCJK = word.unicodeScalars.contains { $0.value >= 0x3000 }
            if isCJK { return period }
            // A word that starts a word: "com.x.annual", "annualpass"; not "proannual" (nor "semiannual",
            // which was tried first).
            let before = range.lowerBound == lower.startIndex ? nil : lower[lower.index(before: range.lowerBound)]
            if !(before?.isLetter ?? false) { return period }
        }
        return nil
    }
}
