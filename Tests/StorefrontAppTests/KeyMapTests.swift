// T2: the key map is the one place keys are bound; reduce, the footers and the help read it.
import Foundation
import StoreCore
import StoreModel
import TerminalUI
import Testing

@testable import StorefrontApp

@Suite("Key map")
struct KeyMapTests {
    @Test("T2 no key is bound twice where it works: a second binding would be dead", arguments: KeyPlace.allCases)
    func noDeadBindings(_ place: KeyPlace) {
        var seen: [Key: Command] = [:]
        for binding in keyMap where binding.places.contains(place) {
            for key in binding.keys {
                #expect(
                    seen[key] == nil,
                    "\(key) is bound to \(seen[key].map { "\($0)" } ?? "") and \(binding.command) on \(place)")
                seen[key] = binding.command
            }
        }
    }

    @Test(
        "T2 every key the footer names does what the footer says",
        arguments: [Route.products, .detail("comic.owl"), .random, .transactions, .signIn])
    func footerKeysWork(_ route: Route) throws {
        let names: [String: Key] = ["⏎": .enter, "Tab": .tab, "Esc": .escape, "↑↓": .up]
        for item in footerItems(route, sellsPlans: true) {
            let key = try #require(names[item.key] ?? item.key.first.map(Key.character), "\(item.key)")
            let bound = try #require(
                binding(for: key, on: route, sellsPlans: true), "\(item.key) does nothing on \(route)")
            #expect(bound.label == item.label)
        }
    }

    @Test("T2 footers spell the keys out as far as the width allows")
    func footerWidths() throws {
        let items = footerItems(.transactions, sellsPlans: true)
        let wide = footerText(items, width: 200)
        #expect(
            wide.hasPrefix(
                "↑↓ select  a approve  x decline  s resolve  p policy  d +1 day  m +1 month  h +1 hour  0 real time"))
        // At 100 columns the transaction manager's footer names what its keys do (it once showed
        // bare letters there).
        let hundred = footerText(items, width: 99)
        #expect(TextWidth.of(hundred) <= 99, "\(hundred)")
        #expect(hundred.hasPrefix("↑↓ select  a approve  x decline  s resolve  p policy  d +1 day  m "), "\(hundred)")
        let narrow = footerText(items, width: 40)
        #expect(narrow == items.map(\.key).joined(separator: " "), "too narrow for any word: keys alone")
        for width in [20, 40, 60, 80, 100, 140] {
            #expect(
                TextWidth.of(footerText(footerItems(.products, sellsPlans: false), width: width)) <= max(width, 17),
                "\(width)")
        }
    }
}
