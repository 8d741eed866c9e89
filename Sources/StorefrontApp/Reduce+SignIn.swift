// The sign-in form's keys: moving between fields and buttons, typing, and what each button asks
// of the store.
import Foundation
import StoreCore
import StoreModel

func reduceSignIn(_ state: inout AppState, _ command: Command) -> [Effect] {
    var form = state.form
    defer { state.form = form }
    let fields = availableFields(state)
    let position = fields.firstIndex(of: form.focus) ?? 0
    switch command {
    case .nextField:
        form.focus = fields[(position + 1) % fields.count]
    case .previousField:
        form.focus = fields[(position + fields.count - 1) % fields.count]
    case .nextButton, .previousButton:
        let buttons = fields.filter { $0 != .name && $0 != .password }
        guard let at = buttons.firstIndex(of: form.focus) else { break }
        form.focus = buttons[(at + (command == .nextButton ? 1 : buttons.count - 1)) % buttons.count]
    case .back:
        state.route = .products
    case .erase:
        if form.focus == .name, !form.name.isEmpty { form.name.removeLast() }
        if form.focus == .password, !form.password.isEmpty { form.password.removeLast() }
    case .choose:
        switch form.focus {
        case .name: form.focus = .password
        case .password, .signIn:
            guard !form.name.isEmpty else {
                form.error = "Type a name first"
                return []
            }
            return [.signIn(name: form.name, password: form.password)]
        case .signUp:
            guard !form.name.isEmpty else {
                form.error = "Type a name first"
                return []
            }
            return [.signUp(name: form.name, password: form.password)]
        case .guest:
            state.route = .products
            state.banner = Banner("Continuing as a guest: comics and packs only")
        case .signOut:
            return [.signOut]
        }
    default: break
    }
    return []
}

/// A character typed into the focused field of the sign-in form.
func type(_ character: Character, into form: inout SignInForm) {
    if form.focus == .name, form.name.count < 64 { form.name.append(character) }
    if form.focus == .password, form.password.count < 128 { form.password.append(character) }
    form.error = nil
}

/// Sign out is offered only to someone signed in.
func availableFields(_ state: AppState) -> [SignInForm.Field] {
    let signedIn = state.snapshot?.status.user != nil
    return SignInForm.Field.allCases.filter { $0 != .signOut || signedIn }
}
