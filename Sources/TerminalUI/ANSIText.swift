// A screen as text with ANSI SGR colour codes, for printing outside curses (show-image).
public enum ANSIText {
    public static func render(_ screen: Screen) -> String {
        (0..<screen.size.rows).map { row(screen, $0) + "\n" }.joined()
    }

    /// One row, its styles as SGR codes, ending plain.
    public static func row(_ screen: Screen, _ y: Int) -> String {
        var output = ""
        var current = Style.plain
        for x in 0..<screen.size.columns {
            let cell = screen[x, y]
            if cell.isContinuation { continue }
            if cell.style != current {
                output += sgr(cell.style)
                current = cell.style
            }
            output += cell.text
        }
        if current != .plain { output += "\u{1B}[0m" }
        return output
    }

    static func sgr(_ style: Style) -> String {
        var codes = ["0"]
        if style.isBold { codes.append("1") }
        if style.isDim { codes.append("2") }
        if style.isUnderline { codes.append("4") }
        if style.isReverse { codes.append("7") }
        if case .indexed(let index) = style.foreground { codes.append(index < 8 ? "3\(index)" : "38;5;\(index)") }
        if case .indexed(let index) = style.background { codes.append(index < 8 ? "4\(index)" : "48;5;\(index)") }
        return codes == ["0"] ? "\u{1B}[0m" : "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}
