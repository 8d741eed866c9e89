// The cell grid: text measured in columns, wide characters kept whole, clipping.
import Testing

@testable import TerminalUI

@Suite("Screen")
struct ScreenTests {
    @Test("text is written by column; a wide character fills two cells")
    func wideCharacters() {
        var screen = Screen(size: Size(columns: 8, rows: 1))
        let end = screen.write("漫画ab", x: 0, y: 0)
        #expect(end == 6)
        #expect(screen.lines == ["漫画ab  "])
        #expect(screen[1, 0].isContinuation)
        #expect(TextWidth.of("漫画") == 4)
        #expect(TextWidth.of("قصص") == 3)
        #expect(TextWidth.of("e\u{301}") == 1)
        #expect(TextWidth.of("✓") == 1)
        #expect(TextWidth.of("🍕") == 2)
    }

    @Test("a wide character that would be cut at the edge is not drawn")
    func wideAtEdge() {
        var screen = Screen(size: Size(columns: 5, rows: 1))
        screen.write("abcd漫", x: 0, y: 0)
        #expect(screen.lines == ["abcd "])
    }

    @Test("overwriting half of a wide character blanks the other half")
    func overwriteHalf() {
        var screen = Screen(size: Size(columns: 4, rows: 1))
        screen.write("漫画", x: 0, y: 0)
        screen.write("x", x: 1, y: 0)
        #expect(screen.lines == [" x画"])
        screen.write("y", x: 2, y: 0)
        #expect(screen.lines == [" xy "])
    }

    @Test("truncation and padding count columns, with an ellipsis")
    func truncation() {
        #expect(TextWidth.truncate("Night Shift", to: 6) == "Night…")
        #expect(TextWidth.truncate("漫画漫画", to: 5) == "漫画…")
        #expect(TextWidth.pad("漫画", to: 6) == "漫画  ")
        #expect(TextWidth.wrap("an owl who cannot sleep", width: 10) == ["an owl who", "cannot", "sleep"])
    }

    @Test("writes are clipped to the rectangle and the screen")
    func clipping() {
        var screen = Screen(size: Size(columns: 6, rows: 2))
        screen.write("hello world", x: 1, y: 0, clip: Rect(x: 0, y: 0, width: 4, height: 1))
        screen.write("zz", x: 5, y: 1)
        screen.write("out", x: 0, y: 5)
        screen.write("neg", x: -2, y: 1)
        #expect(screen.lines == [" hel  ", "g    z"])
    }

    @Test("control characters never reach the terminal")
    func controls() {
        var screen = Screen(size: Size(columns: 4, rows: 1))
        screen.write("a\u{1B}b", x: 0, y: 0)
        #expect(screen.lines == ["a?b "])
    }

    @Test("boxes frame a rectangle, with a title")
    func box() {
        var screen = Screen(size: Size(columns: 10, rows: 3))
        screen.box(Rect(x: 0, y: 0, width: 10, height: 3), title: "Hi")
        #expect(screen.lines == ["┌─ Hi ───┐", "│        │", "└────────┘"])
    }
}
