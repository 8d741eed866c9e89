// The palette: the styles every view draws with, in 256 colours, 8, or none (NO_COLOR).
import Foundation
import StoreCore
import StoreModel
import TerminalUI

/// Colours and emphasis, readable with no colour at all (bold and reverse carry the meaning).
/// Each colour names its 256-colour shade and its 8-colour fallback.
struct Theme {
    let depth: ColorDepth
    var colored: Bool { depth != .none }

    func color(_ shade: UInt8, _ basic: UInt8) -> Color {
        switch depth {
        case .none: .default
        case .eight: .indexed(basic)
        case .palette256: .indexed(shade)
        }
    }

    var titleBar: Style {
        colored
            ? Style(foreground: color(231, 7), background: color(24, 4), bold: true) : Style(bold: true, reverse: true)
    }
    var footer: Style { colored ? Style(foreground: color(250, 0), background: color(236, 7)) : Style(reverse: true) }
    var subscribed: Style { Style(foreground: color(77, 2), bold: true) }
    var notSubscribed: Style { Style(foreground: color(179, 3), bold: true) }
    var selected: Style {
        colored
            ? Style(foreground: color(231, 7), background: color(25, 4), bold: true) : Style(bold: true, reverse: true)
    }
    var dim: Style { colored ? Style(foreground: color(245, 7)) : Style(dim: true) }
    var action: Style { Style(foreground: color(80, 6), bold: true) }
    var owned: Style { Style(foreground: color(77, 2), bold: true) }
    var waiting: Style { Style(foreground: color(214, 3), bold: true) }
    var failed: Style { Style(foreground: color(203, 1)) }
    var title: Style { Style(bold: true) }
    func banner(_ kind: Banner.Kind) -> Style {
        guard colored else { return Style(bold: true) }
        switch kind {
        case .info: return Style(foreground: color(231, 7), background: color(31, 4))
        case .success: return Style(foreground: color(16, 0), background: color(114, 2))
        case .failure: return Style(foreground: color(231, 7), background: color(160, 1), bold: true)
        }
    }
}
