// One screen tick, one look at a team server for each thing it reads: `sharingReads` answers a read
// asked again from its first answer, until a call that is not a read comes between; after it, every
// read goes to the server again (W1).
import Foundation
import StoreCore
import StoreModel
import StorefrontApp
import StorefrontServer
import TestSupport
import Testing

@Suite("A device's reads shared within one tick", .tags(.postgres), .notInFastRun)
struct SharedReadsTests {
    @Test(
        "W1 within sharingReads a read asked again keeps its first answer; a call that is not a read asks again; after it, another device's change is seen",
        arguments: Backend.allCases)
    func oneLookATick(backend: Backend) async throws {
        let setup = try RemoteStoreTests.Setup(catalog: selfiesCatalog, backend: backend)
        try await setup.run { port in
            let phone = try setup.device(port: port)
            try phone.accounts.signUp("ann", password: "secret")
            let developer = try setup.device(port: port, name: "laptop", developer: true)
            let remote = try #require(phone.server as? RemoteAccountServer)
            let hook = Webhook(url: "http://127.0.0.1:9/hook")
            try remote.sharingReads {
                #expect(try phone.server.webhook() == nil)
                try developer.server.setWebhook(hook)
                #expect(try phone.server.webhook() == nil, "asked again in the same tick: its first answer")
                #expect(try phone.server.changeStamp() == phone.server.changeStamp(), "other reads change nothing")
                #expect(try phone.server.webhook() == nil)
                try phone.queue.buy("comic.a")
                #expect(try phone.server.webhook() != nil, "a purchase's writes came between: asked again")
                try developer.server.setWebhook(nil)
                #expect(try phone.server.webhook() != nil)
            }
            #expect(try phone.server.webhook() == nil, "after the tick, reads go to the server")
            #expect(try phone.server.webhook() == nil)
            try developer.server.setWebhook(hook)
            #expect(try phone.server.webhook() != nil, "and outside a tick nothing is kept")
            // Within a tick, the device's own purchase is seen by its next read of the plans.
            try remote.sharingReads {
                #expect(try phone.server.plans(account: "ann").isEmpty)
                try phone.queue.buy("allaccess")
                #expect(try phone.server.plans(account: "ann").isEmpty == false, "a purchase's writes come between")
            }
        }
    }

    @Test(
        "W1 an idle screen tick on a team server asks each thing once: its recovery and its snapshot read the plans, the families and the settings, and no call goes twice",
        arguments: Backend.allCases)
    func idleTick(backend: Backend) async throws {
        let setup = try RemoteStoreTests.Setup(catalog: selfiesCatalog, backend: backend)
        try await setup.run { port in
            let phone = try setup.device(port: port)
            try phone.accounts.signUp("ann", password: "secret")
            try phone.queue.buy("allaccess")
            let remote = try #require(phone.server as? RemoteAccountServer)
            let screen = LiveStore(store: phone)
            _ = screen.perform(.settle)
            let before = remote.callsSent
            _ = screen.perform(.settle)
            let tick = remote.callsSent.merging(before) { $0 - $1 }.filter { $0.value > 0 }
            #expect(tick["plans"] == 1 && tick["receipt"] == 1 && tick["simulatedErrors"] == 1, "\(tick)")
            #expect(tick.values.allSatisfy { $0 == 1 }, "\(tick)")
        }
    }
}
