// The sign-in form (A1): name, password and the buttons in a row.
import Foundation
import StoreCore
import StoreModel
import TerminalUI

func drawSignIn(_ screen: inout Screen, _ state: AppState, _ theme: Theme, _ area: Rect) {
    let form = state.form
    let width = min(area.width, 46)
    let x = (area.width - width) / 2
    var y = area.y
    let current = state.snapshot?.status.user.map { "Signed in as \($0)" } ?? "Sign in or sign up to buy subscriptions"
    if area.height >= 8 {
        screen.write(TextWidth.truncate(current, to: width), x: x, y: y, style: theme.dim)
        y += 2
    }
    func field(_ label: String, _ value: String, _ which: SignInForm.Field) {
        guard y < area.maxY else { return }
        let focused = form.focus == which
        let labelEnd = screen.write(label, x: x, y: y, style: theme.title)
        let box = TextWidth.pad(value + (focused ? "_" : ""), to: max(1, x + width - labelEnd))
        screen.write(box, x: labelEnd, y: y, style: focused ? theme.selected : Style(underline: true))
        y += 1
    }
    field("Name ", form.name, .name)
    field("Password ", String(repeating: "•", count: form.password.count), .password)
    if y < area.maxY {
        var bx = x
        for choice in availableFields(state) where choice.rawValue >= SignInForm.Field.signIn.rawValue {
            let label: String
            switch choice {
            case .signIn: label = "[Sign in]"
            case .signUp: label = "[Sign up]"
            case .guest: label = "[Guest]"
            case .signOut: label = "[Sign out]"
            default: continue
            }
            bx = screen.write(label, x: bx, y: y, style: form.focus == choice ? theme.selected : theme.action) + 1
        }
        y += 1
    }
    if let error = form.error, y < area.maxY {
        for line in TextWidth.wrap(error, width: width).prefix(area.maxY - y) {
            screen.write(line, x: x, y: y, style: theme.banner(.failure))
            y += 1
        }
    }
}
