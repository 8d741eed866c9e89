// The in-memory screen: a grid of cells that views draw into and the backend diffs and writes.
// Text is measured in terminal columns, never in Characters: a wide character fills two cells.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A colour as the xterm 256-colour palette numbers it (0–15 the theme's, 16–231 the cube,
/// 232–255 the grey ramp), or the terminal's default.
public enum Color: Hashable, Sendable {
    case `default`
    case indexed(UInt8)

    public static let black = Color.indexed(0), red = Color.indexed(1), green = Color.indexed(2)
    public static let yellow = Color.indexed(3), blue = Color.indexed(4), magenta = Color.indexed(5)
    public static let cyan = Color.indexed(6), white = Color.indexed(7)
}

public struct Style: Hashable, Sendable {
    public var foreground: Color
    public var background: Color
    public var isBold: Bool
    public var isDim: Bool
    public var isReverse: Bool
    public var isUnderline: Bool

    public init(
        foreground: Color = .default, background: Color = .default, bold: Bool = false, dim: Bool = false,
        reverse: Bool = false, underline: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.isBold = bold
        self.isDim = dim
        self.isReverse = reverse
        self.isUnderline = underline
    }

    public static let plain = Style()
}

public struct Cell: Hashable, Sendable {
    /// One grapheme (a character and its combining marks); "" for the right half of a wide one.
    public var text: String
    public var style: Style

    public init(_ text: String = " ", style: Style = .plain) {
        self.text = text
        self.style = style
    }

    public static let blank = Cell()
    static let continuation = Cell("")
    public var isContinuation: Bool { text.isEmpty }
}

public struct Size: Hashable, Sendable {
    public var columns: Int
    public var rows: Int
    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }
}

public struct Rect: Hashable, Sendable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, max(0, width), max(0, height))
    }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }
    public func inset(by amount: Int) -> Rect {
        Rect(x: x + amount, y: y + amount, width: width - 2 * amount, height: height - 2 * amount)
    }
}

public struct Screen: Equatable, Sendable {
    public private(set) var size: Size
    public private(set) var cells: [Cell]

    public init(size: Size) {
        self.size = Size(columns: max(0, size.columns), rows: max(0, size.rows))
        cells = Array(repeating: .blank, count: self.size.columns * self.size.rows)
    }

    public var bounds: Rect { Rect(x: 0, y: 0, width: size.columns, height: size.rows) }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * size.columns + x] }
        set { cells[y * size.columns + x] = newValue }
    }

    /// Writes `text` from (x, y), clipped to `clip` (default: the whole screen). Returns the
    /// column after the last one written. A wide character that would be cut in half at the
    /// right edge is not drawn.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: Style = .plain, clip: Rect? = nil) -> Int {
        let clip = clip ?? bounds
        guard y >= clip.y, y < clip.maxY, y >= 0, y < size.rows else { return x }
        var column = x
        for character in text {
            let width = TextWidth.of(character)
            if width == 0 { continue }
            if column + width > clip.maxX || column + width > size.columns { break }
            if column >= clip.x, column >= 0 {
                put(Cell(TextWidth.printable(character), style: style), width: width, x: column, y: y)
            }
            column += width
        }
        return column
    }

    /// One cell, keeping wide characters whole: overwriting half of one blanks the other half.
    public mutating func put(_ cell: Cell, width: Int = 1, x: Int, y: Int) {
        guard x >= 0, y >= 0, y < size.rows, x + width <= size.columns else { return }
        if self[x, y].isContinuation, x > 0 { self[x - 1, y] = Cell(" ", style: self[x - 1, y].style) }
        if width == 1, x + 1 < size.columns, self[x + 1, y].isContinuation {
            self[x + 1, y] = Cell(" ", style: self[x + 1, y].style)
        }
        self[x, y] = cell
        if width == 2 {
            if x + 2 < size.columns, self[x + 2, y].isContinuation {
                self[x + 2, y] = Cell(" ", style: self[x + 2, y].style)
            }
            self[x + 1, y] = Cell("", style: cell.style)
        }
    }

    /// Copies `other` onto this screen with its top-left corner at (x, y), clipped to this one.
    public mutating func paste(_ other: Screen, x: Int, y: Int) {
        for row in 0..<other.size.rows where y + row >= 0 && y + row < size.rows {
            for column in 0..<other.size.columns where x + column >= 0 && x + column < size.columns {
                self[x + column, y + row] = other[column, row]
            }
        }
    }

    public mutating func fill(_ rect: Rect, with cell: Cell = .blank) {
        for y in max(0, rect.y)..<min(size.rows, rect.maxY) where rect.x < rect.maxX {
            for x in max(0, rect.x)..<min(size.columns, rect.maxX) { self[x, y] = cell }
        }
    }

    /// A frame with box-drawing characters and an optional title in its top edge.
    public mutating func box(_ rect: Rect, style: Style = .plain, title: String? = nil) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        for x in rect.x + 1..<rect.maxX - 1 {
            put(Cell("─", style: style), x: x, y: rect.y)
            put(Cell("─", style: style), x: x, y: rect.maxY - 1)
        }
        for y in rect.y + 1..<rect.maxY - 1 {
            put(Cell("│", style: style), x: rect.x, y: y)
            put(Cell("│", style: style), x: rect.maxX - 1, y: y)
        }
        put(Cell("┌", style: style), x: rect.x, y: rect.y)
        put(Cell("┐", style: style), x: rect.maxX - 1, y: rect.y)
        put(Cell("└", style: style), x: rect.x, y: rect.maxY - 1)
        put(Cell("┘", style: style), x: rect.maxX - 1, y: rect.maxY - 1)
        if let title, rect.width > 4 {
            let clipped = TextWidth.truncate(" \(title) ", to: rect.width - 4)
            write(clipped, x: rect.x + 2, y: rect.y, style: style)
        }
    }

    /// The screen as plain text, one line a row, trailing spaces kept: what tests compare.
    public var lines: [String] {
        (0..<size.rows).map { y in
            (0..<size.columns).map { x in self[x, y].text }.joined()
        }
    }

    public var text: String { lines.joined(separator: "\n") }
}

/// Column widths of text, locale-independent so that tests and the terminal agree.
public enum TextWidth {
    /// 0 for combining marks and controls, 2 for East Asian wide and emoji, else 1.
    public static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        return of(first)
    }

    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (value >= 0x7F && value < 0xA0) { return 1 }  // drawn as a replacement
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if isWide(value) { return 2 }
        return 1
    }

    public static func of(_ text: String) -> Int { text.reduce(0) { $0 + of($1) } }

    /// Controls are shown as "?" so that they can never move the cursor.
    static func printable(_ character: Character) -> String {
        guard let first = character.unicodeScalars.first else { return " " }
        if first.value < 0x20 || (first.value >= 0x7F && first.value < 0xA0) { return "?" }
        return String(character)
    }

    /// East Asian Wide and Fullwidth ranges (Unicode 15), and emoji presentation.
    static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3,
            0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB,
            0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA,
            0x26FD, 0x2705, 0x270A...0x270B, 0x2728, 0x274C, 0x274E, 0x2753...0x2755, 0x2757,
            0x2795...0x2797, 0x27B0, 0x27BF, 0x2B1B...0x2B1C, 0x2B50, 0x2B55,
            0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
            0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F320,
            0x1F32D...0x1F335, 0x1F337...0x1F37C, 0x1F37E...0x1F393, 0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3,
            0x1F3E0...0x1F3F0, 0x1F3F4, 0x1F3F8...0x1F43E, 0x1F440, 0x1F442...0x1F4FC, 0x1F4FF...0x1F53D,
            0x1F54B...0x1F54E, 0x1F550...0x1F567, 0x1F57A, 0x1F595...0x1F596, 0x1F5A4, 0x1F5FB...0x1F64F,
            0x1F680...0x1F6C5, 0x1F6CC, 0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7, 0x1F6EB...0x1F6EC,
            0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB, 0x1F90C...0x1F93A, 0x1F93C...0x1F945, 0x1F947...0x1F9FF,
            0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `width` columns, with "…" when something was cut.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        var result = ""
        var used = 0
        for character in text {
            let w = of(character)
            if used + w > width - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// `text` padded with spaces (or truncated) to exactly `width` columns.
    public static func pad(_ text: String, to width: Int) -> String {
        let cut = truncate(text, to: width)
        return cut + String(repeating: " ", count: max(0, width - of(cut)))
    }

    /// Words wrapped into lines of at most `width` columns.
    public static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            let candidate = line.isEmpty ? word : line + " " + word
            if of(candidate) <= width {
                line = candidate
            } else {
                if !line.isEmpty { lines.append(line) }
                line = of(word) <= width ? word : truncate(word, to: width)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
