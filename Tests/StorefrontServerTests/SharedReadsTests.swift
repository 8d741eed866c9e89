// One screen tick, one look at a team server for each thing it reads: `sharingReads` answers a read
// asked again from its first answer, until a call that is not a read comes between; after it, every
// read goes to the server again (W1).
import Foundation
import StoreCore
import StorefrontServer
import Testing
import TestSupport

@Suite("A device's reads shared within one tick")
struct SharedReadsTests {
    @Test("W1 within sharingReads a read asked again keeps its first answer; a call that is not a read asks again; after it, another device's change is seen", arguments: Backend.allCases)
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
                _ = try phone.server.changeStamp()
                #expect(try phone.server.webhook() != nil, "a call that is not a read came between: asked again")
                try developer.server.setWebhook(nil)
                #expect(try phone.server.webhook() != nil)
            }
            #expect(try phone.server.webhook() == nil, "after the tick, reads go to the server")
            #expect(try phone.server.webhook() == nil)
            try developer.server.setWebhook(hook)
            #expect(try phone.server.webhook() != nil, "and outside a tick nothing is kept")
            // The same read for another request is asked, not answered from the first one.
            try remote.sharingReads {
                #expect(try phone.server.plans(account: "ann").isEmpty)
                try phone.queue.buy("allaccess")
                #expect(try phone.server.plans(account: "ann").isEmpty == false, "a purchase's writes come between")
            }
        }
    }
}
