// App Store storefronts (countries, their Apple ids and currencies) and the placeholder picture
// of a product without one.
import Foundation

/// App Store storefronts by their three-letter code: the country's locale and currency.
package enum Storefronts {
    package struct Country {
        package let locale: String
        package let currency: String
    }

    /// Apple's numeric id of a storefront (`storefrontId` in signed data); the USA's when unknown.
    static func appleID(_ code: String) -> String {
        String(appleIDs[code.uppercased()] ?? 143_441)
    }

    static let appleIDs: [String: Int] = [
        "USA": 143_441, "FRA": 143_442, "DEU": 143_443, "GBR": 143_444, "AUT": 143_445, "BEL": 143_446, "FIN": 143_447,
        "GRC": 143_448, "IRL": 143_449, "ITA": 143_450, "LUX": 143_451, "NLD": 143_452, "PRT": 143_453, "ESP": 143_454,
        "CAN": 143_455, "SWE": 143_456, "NOR": 143_457, "DNK": 143_458, "CHE": 143_459, "AUS": 143_460, "NZL": 143_461,
        "JPN": 143_462, "HKG": 143_463, "SGP": 143_464, "CHN": 143_465, "KOR": 143_466, "IND": 143_467, "MEX": 143_468,
        "RUS": 143_469, "TWN": 143_470, "VNM": 143_471, "ZAF": 143_472, "MYS": 143_473, "PHL": 143_474, "THA": 143_475,
        "IDN": 143_476, "PAK": 143_477, "POL": 143_478, "SAU": 143_479, "TUR": 143_480, "ARE": 143_481, "HUN": 143_482,
        "CHL": 143_483, "CZE": 143_489, "ISR": 143_491, "UKR": 143_492, "KWT": 143_493, "SVK": 143_496, "QAT": 143_498,
        "COL": 143_501, "BRA": 143_503, "ARG": 143_505, "PER": 143_507, "EGY": 143_516, "BGR": 143_526, "KEN": 143_529,
        "ROU": 143_487, "ISL": 143_558, "NGA": 143_561,
    ]

    /// Where Apple's App Store does not sell the monthly plan with a 12-month commitment.
    package static let withoutMonthlyCommitment: Set = ["USA", "SGP"]

    /// The storefront a catalog that names none sells in, and why: the one its locale's region
    /// names when that storefront sells in its currency, else the only storefront of its currency;
    /// nil when neither names one (EUR with en_US).
    package static func implied(locale: String, currency: String) -> (code: String, reason: String)? {
        let currency = currency.uppercased()
        let region = locale.split(whereSeparator: { $0 == "_" || $0 == "-" }).dropFirst().first.map {
            String($0).uppercased()
        }
        if let region,
            let code = locales.first(where: { $0.value.uppercased().hasSuffix("_" + region) })?.key,
            currencies[code] == currency
        {
            return (code, "from its locale \(locale) and currency \(currency)")
        }
        let selling = currencies.filter { $0.value == currency }.map(\.key)
        if selling.count == 1, let code = selling.first { return (code, "from its currency \(currency)") }
        return nil
    }

    package static func country(_ code: String) -> Country? {
        guard let locale = locales[code.uppercased()] else { return nil }
        return Country(locale: locale, currency: currencies[code.uppercased()] ?? "USD")
    }

    static let locales: [String: String] = [
        "USA": "en_US", "GBR": "en_GB", "CAN": "en_CA", "AUS": "en_AU", "NZL": "en_NZ", "IRL": "en_IE", "IND": "en_IN",
        "SGP": "en_SG", "ZAF": "en_ZA", "PHL": "en_PH", "FRA": "fr_FR", "DEU": "de_DE", "AUT": "de_AT", "CHE": "de_CH",
        "ITA": "it_IT", "ESP": "es_ES", "MEX": "es_MX", "ARG": "es_AR", "CHL": "es_CL", "COL": "es_CO", "PER": "es_PE",
        "BRA": "pt_BR", "PRT": "pt_PT", "NLD": "nl_NL", "BEL": "nl_BE", "LUX": "fr_LU", "SWE": "sv_SE", "NOR": "nb_NO",
        "DNK": "da_DK", "FIN": "fi_FI", "ISL": "is_IS", "POL": "pl_PL", "CZE": "cs_CZ", "SVK": "sk_SK", "HUN": "hu_HU",
        "ROU": "ro_RO", "BGR": "bg_BG", "GRC": "el_GR", "TUR": "tr_TR", "RUS": "ru_RU", "UKR": "uk_UA", "ISR": "he_IL",
        "SAU": "ar_SA", "ARE": "ar_AE", "EGY": "ar_EG", "QAT": "ar_QA", "KWT": "ar_KW", "CHN": "zh_CN", "TWN": "zh_TW",
        "HKG": "zh_HK", "JPN": "ja_JP", "KOR": "ko_KR", "THA": "th_TH", "VNM": "vi_VN", "IDN": "id_ID", "MYS": "ms_MY",
        "PAK": "ur_PK", "NGA": "en_NG", "KEN": "en_KE",
    ]

    static let currencies: [String: String] = [
        "USA": "USD", "GBR": "GBP", "CAN": "CAD", "AUS": "AUD", "NZL": "NZD", "IRL": "EUR", "IND": "INR", "SGP": "SGD",
        "ZAF": "ZAR", "PHL": "PHP", "FRA": "EUR", "DEU": "EUR", "AUT": "EUR", "CHE": "CHF", "ITA": "EUR", "ESP": "EUR",
        "MEX": "MXN", "ARG": "ARS", "CHL": "CLP", "COL": "COP", "PER": "PEN", "BRA": "BRL", "PRT": "EUR", "NLD": "EUR",
        "BEL": "EUR", "LUX": "EUR", "SWE": "SEK", "NOR": "NOK", "DNK": "DKK", "FIN": "EUR", "ISL": "ISK", "POL": "PLN",
        "CZE": "CZK", "SVK": "EUR", "HUN": "HUF", "ROU": "RON", "BGR": "BGN", "GRC": "EUR", "TUR": "TRY", "RUS": "RUB",
        "UKR": "UAH", "ISR": "ILS", "SAU": "SAR", "ARE": "AED", "EGY": "EGP", "QAT": "QAR", "KWT": "KWD", "CHN": "CNY",
        "TWN": "TWD", "HKG": "HKD", "JPN": "JPY", "KOR": "KRW", "THA": "THB", "VNM": "VND", "IDN": "IDR", "MYS": "MYR",
        "PAK": "PKR", "NGA": "NGN", "KEN": "KES",
    ]
}

/// Generated pictures for products that have none: a path the picture cache draws itself.
public enum Placeholder {
    public static let scheme = "placeholder:"

    public static func path(for productID: String) -> String { scheme + productID }

    public static func productID(of path: String) -> String? {
        path.hasPrefix(scheme) ? String(path.dropFirst(scheme.count)) : nil
    }
}
