// Overlays over the screen: a framed box of lines, and the help that lists the screen's keys.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

/// A framed box in the middle of the screen (the inspector).
func drawOverlay(_ screen: inout Screen, title: String, lines: [String], theme: Theme) {
    let width = min(screen.size.columns, max(TextWidth.of(title) + 6, (lines.map(TextWidth.of).max() ?? 0) + 4))
    let height = min(screen.size.rows, lines.count + 2)
    let frame = Rect(
        x: (screen.size.columns - width) / 2, y: (screen.size.rows - height) / 2, width: width, height: height)
    screen.fill(frame)
    screen.box(frame, style: theme.title, title: title)
    for (index, line) in lines.enumerated() where index + 1 < height - 1 {
        screen.write(line, x: frame.x + 2, y: frame.y + 1 + index, style: .plain, clip: frame.inset(by: 1))
    }
}

func drawHelp(_ screen: inout Screen, _ state: AppState, _ theme: Theme) {
    let lines = helpLines(state.route, sellsPlans: sellsPlans(state))
    let width = min(screen.size.columns, (lines.map(TextWidth.of).max() ?? 0) + 4)
    let height = min(screen.size.rows, lines.count + 2)
    let frame = Rect(
        x: (screen.size.columns - width) / 2, y: (screen.size.rows - height) / 2, width: width, height: height)
    screen.fill(frame)
    screen.box(frame, style: theme.title, title: "Keys")
    for (index, line) in lines.enumerated() where index + 1 < height - 1 {
        screen.write(
            line, x: frame.x + 2, y: frame.y + 1 + index, style: line.hasPrefix(" ") ? .plain : theme.title,
            clip: frame.inset(by: 1))
    }
}
