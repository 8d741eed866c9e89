// The mouse on the product list: scrolling, a click that selects or buys, a double click that
// opens, and a click on a banner that takes it away.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

func reduceMouse(_ state: inout AppState, _ event: MouseEvent) -> [Effect] {
    if state.showsHelp {
        state.showsHelp = false
        return []
    }
    guard state.route == .products, let rows = state.snapshot?.rows else { return [] }
    let layout = ProductListLayout(size: state.size, snapshot: state.snapshot, selection: state.selection)
    switch event.kind {
    case .scrollUp: state.selection = clamp(state.selection - 1, count: rows.count)
    case .scrollDown: state.selection = clamp(state.selection + 1, count: rows.count)
    case .click, .doubleClick:
        // A click on a banner that covers rows of the list takes the banner away, and never
        // selects or buys a row it hides.
        if let banner = bannerLines(state), bannerRows(banner.lines.count, height: state.size.rows).contains(event.y) {
            if state.serverProblem == nil { state.banner = nil }
            return []
        }
        // A click below the last row, or on a window too small to show the list, does nothing.
        guard !state.isTooSmall, let index = layout.row(atY: event.y), rows.indices.contains(index) else { return [] }
        state.selection = index
        state.banner = nil
        if event.kind == .doubleClick { return open(&state, rows[index]) }
        if event.x >= layout.actionColumn { return buy(&state, rows[index].product.id) }
    }
    return []
}
