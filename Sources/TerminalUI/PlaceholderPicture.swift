// A picture for a product that has none (a `.storekit` product): its initials on a colour taken
// from its id, so that the same product always looks the same and neighbours look different.
// The 5×7 letters are drawn from a table here: the few glyphs needed did not justify a font
// library, and no font file ships with the project.
import Foundation

public enum PlaceholderPicture {
    public static let width = 160
    public static let height = 100

    /// Up to two initials: the first letters of the title's words, else of the id's last part.
    public static func initials(title: String, id: String) -> String {
        func letters(_ words: [Substring]) -> String {
            String(words.compactMap { $0.first { $0.isASCII && ($0.isLetter || $0.isNumber) } }.prefix(2)).uppercased()
        }
        let fromTitle = letters(title.split { $0 == " " || $0 == "-" || $0 == "_" })
        if !fromTitle.isEmpty { return fromTitle }
        let last = id.split(separator: ".").last ?? Substring(id)
        let fromID = letters(last.split { !$0.isLetter && !$0.isNumber })
        return fromID.isEmpty ? "?" : fromID
    }

    /// FNV-1a of the id, turned into a hue: stable across runs and machines.
    public static func color(for id: String) -> RGBA {
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        let hue = Double(hash % 360) / 60
        let (s, v) = (0.55, 0.75)
        let c = v * s
        let x = c * (1 - abs(hue.truncatingRemainder(dividingBy: 2) - 1))
        let m = v - c
        let (r, g, b): (Double, Double, Double) =
            switch Int(hue) {
            case 0: (c, x, 0)
            case 1: (x, c, 0)
            case 2: (0, c, x)
            case 3: (0, x, c)
            case 4: (x, 0, c)
            default: (c, 0, x)
            }
        return RGBA(UInt8((r + m) * 255), UInt8((g + m) * 255), UInt8((b + m) * 255))
    }

    public static func image(title: String, id: String) -> RGBAImage {
        let background = color(for: id)
        var image = RGBAImage(width: width, height: height, fill: background)
        let border = RGBA(background.r / 2, background.g / 2, background.b / 2)
        for x in 0..<width {
            for y in [0, 1, height - 2, height - 1] { image[x, y] = border }
        }
        for y in 0..<height {
            for x in [0, 1, width - 2, width - 1] { image[x, y] = border }
        }
        let text = Array(initials(title: title, id: id))
        let scale = 8
        let glyphWidth = 5 * scale
        let gap = 2 * scale
        let total = text.count * glyphWidth + (text.count - 1) * gap
        var left = (width - total) / 2
        let top = (height - 7 * scale) / 2
        for character in text {
            let rows = glyphs[character] ?? glyphs["?"]!
            for (row, bits) in rows.enumerated() {
                for column in 0..<5 where bits & (1 << (4 - column)) != 0 {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            image[left + column * scale + dx, top + row * scale + dy] = RGBA(255, 255, 255)
                        }
                    }
                }
            }
            left += glyphWidth + gap
        }
        return image
    }

    /// 5×7 glyphs, one row per number, the leftmost pixel in bit 4.
    static let glyphs: [Character: [UInt8]] = [
        "A": [14, 17, 17, 31, 17, 17, 17], "B": [30, 17, 17, 30, 17, 17, 30], "C": [14, 17, 16, 16, 16, 17, 14],
        "D": [30, 17, 17, 17, 17, 17, 30], "E": [31, 16, 16, 30, 16, 16, 31], "F": [31, 16, 16, 30, 16, 16, 16],
        "G": [14, 17, 16, 23, 17, 17, 15], "H": [17, 17, 17, 31, 17, 17, 17], "I": [14, 4, 4, 4, 4, 4, 14],
        "J": [7, 2, 2, 2, 2, 18, 12], "K": [17, 18, 20, 24, 20, 18, 17], "L": [16, 16, 16, 16, 16, 16, 31],
        "M": [17, 27, 21, 21, 17, 17, 17], "N": [17, 17, 25, 21, 19, 17, 17], "O": [14, 17, 17, 17, 17, 17, 14],
        "P": [30, 17, 17, 30, 16, 16, 16], "Q": [14, 17, 17, 17, 21, 18, 13], "R": [30, 17, 17, 30, 20, 18, 17],
        "S": [15, 16, 16, 14, 1, 1, 30], "T": [31, 4, 4, 4, 4, 4, 4], "U": [17, 17, 17, 17, 17, 17, 14],
        "V": [17, 17, 17, 17, 17, 10, 4], "W": [17, 17, 17, 21, 21, 21, 10], "X": [17, 17, 10, 4, 10, 17, 17],
        "Y": [17, 17, 10, 4, 4, 4, 4], "Z": [31, 1, 2, 4, 8, 16, 31], "0": [14, 17, 19, 21, 25, 17, 14],
        "1": [4, 12, 4, 4, 4, 4, 14], "2": [14, 17, 1, 2, 4, 8, 31], "3": [31, 2, 4, 2, 1, 17, 14],
        "4": [2, 6, 10, 18, 31, 2, 2], "5": [31, 16, 30, 1, 1, 17, 14], "6": [6, 8, 16, 30, 17, 17, 14],
        "7": [31, 1, 2, 4, 8, 8, 8], "8": [14, 17, 17, 14, 17, 17, 14], "9": [14, 17, 17, 15, 1, 2, 12],
        "?": [14, 17, 1, 2, 4, 0, 4],
    ]
}
