// Apple's Retention Messaging API (M1): images and messages uploaded for review, default messages
// per product and locale, the realtime URL of the developer's Get Retention Message endpoint, and
// the performance test that calls it. Paths, bodies, states and error codes are Apple's; what the
// server keeps is the account server's retention setup (RetentionStore).
import Foundation
import Hummingbird
import StoreCore
import StoreModel

extension ServerAPI {
    static let retentionRoutes = APIArea(
        group: "inApps/v1/messaging",
        routes: [
            APIRoute(.get, "image/list") { api, _, _, _ in try api.imageList() },
            APIRoute(.put, "image/:id") { api, request, path, _ in try api.uploadImage(path.require("id"), request) },
            APIRoute(.delete, "image/:id") { api, _, path, _ in try api.deleteImage(path.require("id")) },
            APIRoute(.get, "message/list") { api, _, _, _ in try api.messageList() },
            APIRoute(.put, "message/:id") { api, request, path, _ in try api.uploadMessage(path.require("id"), request)
            },
            APIRoute(.delete, "message/:id") { api, _, path, _ in try api.deleteMessage(path.require("id")) },
            APIRoute(.put, "default/:product/:locale") { api, request, path, _ in
                try api.configureDefault(path.require("product"), path.require("locale"), request)
            },
            APIRoute(.get, "default/:product/:locale") { api, _, path, _ in
                try api.defaultMessage(path.require("product"), path.require("locale"), delete: false)
            },
            APIRoute(.delete, "default/:product/:locale") { api, _, path, _ in
                try api.defaultMessage(path.require("product"), path.require("locale"), delete: true)
            },
            APIRoute(.put, "realtime/url") { api, request, _, identity in
                try api.configureRealtimeURL(request, environment: identity.environment)
            },
            APIRoute(.get, "realtime/url") { api, _, _, identity in
                try api.realtimeURL(delete: false, environment: identity.environment)
            },
            APIRoute(.delete, "realtime/url") { api, _, _, identity in
                try api.realtimeURL(delete: true, environment: identity.environment)
            },
            APIRoute(.post, "performanceTest") { api, request, _, identity in
                try api.initiatePerformanceTest(request, identity: identity)
            },
            APIRoute(.get, "performanceTest/result/:id") { api, _, path, _ in
                try api.performanceTestResult(path.require("id"))
            },
        ])

    static let ok = APIResponse(status: 200, body: Data())
    static let maximumImages = 2_000

    /// A UUID path segment in lower case, or nil.
    static func uuid(_ text: String) -> String? { UUID(uuidString: text).map { $0.uuidString.lowercased() } }

    /// What a change of the setup answers: the refusal it threw, or `ok`.
    func change(_ body: (inout RetentionSetup) throws(StoreError) -> APIResponse?) throws(StoreError) -> APIResponse {
        try server.changeRetention { (setup: inout RetentionSetup) throws(StoreError) -> APIResponse in
            try body(&setup) ?? Self.ok
        }
    }

    // MARK: Images

    func uploadImage(_ given: String, _ request: APIRequest) throws(StoreError) -> APIResponse {
        guard let id = Self.uuid(given) else { return .error(.generalBadRequest, "\"\(given)\" is not a UUID") }
        let size = request.value("imageSize") ?? "FULL_SIZE"
        guard RetentionImage.sizes.contains(size) else {
            return .error(.invalidImageSize, "imageSize must be FULL_SIZE or BULLET_POINT")
        }
        guard let facts = PNGFacts(request.body) else { return .error(.invalidImage, "the body is not a PNG image") }
        guard !facts.hasTransparency else {
            return .error(.invalidImage, "the image can be transparent (an alpha channel or tRNS): Apple refuses it")
        }
        if size == "FULL_SIZE", facts.width != 3_840 || !(160...2_160).contains(facts.height) {
            return .error(
                .invalidImage,
                "a FULL_SIZE image is 3840 pixels wide and 160–2160 high, not \(facts.width)×\(facts.height)")
        }
        let exists = try server.retentionSetup().image(id) != nil
        if exists { return .error(.imageAlreadyExists, "image \(id) is uploaded already") }
        // The picture first: a setup never names an image whose PNG is missing.
        try server.setRetentionImage(id, png: request.body)
        let response = try change { (setup: inout RetentionSetup) throws(StoreError) -> APIResponse? in
            if setup.image(id) != nil { return .error(.imageAlreadyExists, "image \(id) is uploaded already") }
            if setup.images.count >= Self.maximumImages {
                return .error(.maximumNumberOfImagesReached, "2,000 images are uploaded already")
            }
            setup.images.append(
                RetentionImage(
                    id: id, size: size, state: setup.approvesAtOnce ? .approved : .pending, width: facts.width,
                    height: facts.height
                ))
            return nil
        }
        // Refused: the picture written first goes again (unless it is an existing image's).
        if response.status != 200, try server.retentionSetup().image(id) == nil {
            try server.setRetentionImage(id, png: nil)
        }
        return response
    }

    func deleteImage(_ given: String) throws(StoreError) -> APIResponse {
        guard let id = Self.uuid(given) else { return .error(.generalBadRequest, "\"\(given)\" is not a UUID") }
        let response = try change { (setup: inout RetentionSetup) throws(StoreError) -> APIResponse? in
            guard setup.image(id) != nil else { return .error(.imageNotFound, "no image \(id)") }
            if let user = setup.messages.first(where: { $0.imageIDs.contains(id) }) {
                return .error(.imageInUse, "message \(user.id) shows image \(id)")
            }
            setup.images.removeAll { $0.id == id }
            return nil
        }
        if response.status == 200 { try server.setRetentionImage(id, png: nil) }
        return response
    }

    func imageList() throws(StoreError) -> APIResponse {
        let images = try server.retentionSetup().images.map { image in
            RetentionImageList.Item(imageIdentifier: image.id, imageState: image.state.rawValue, imageSize: image.size)
        }
        return .json(RetentionImageList(imageIdentifiers: images))
    }

    // MARK: Messages

    /// Apple's UploadMessageRequestBody.
    struct UploadedMessage: Decodable {
        struct Image: Decodable {
            var imageIdentifier: String
            var altText: String
        }
        struct Bullet: Decodable {
            var text: String
            var imageIdentifier: String
            var altText: String
        }
        var header: String
        var body: String
        var image: Image?
        var headerPosition: String?
        var bulletPoints: [Bullet]?
    }

    func uploadMessage(_ given: String, _ request: APIRequest) throws(StoreError) -> APIResponse {
        guard let id = Self.uuid(given) else { return .error(.generalBadRequest, "\"\(given)\" is not a UUID") }
        guard let uploaded = try? JSONDecoder().decode(UploadedMessage.self, from: request.body) else {
            return .error(
                .generalBadRequest, "the body is not an UploadMessageRequestBody (header and body are required)")
        }
        guard uploaded.header.count <= 66 else { return .error(.headerTooLong, "header is over 66 characters") }
        guard uploaded.body.count <= 144 else {
            return .json(
                ErrorPayload(errorCode: APIErrorCode.bodyTooLong.rawValue, errorMessage: "body is over 144 characters"),
                status: 400)
        }
        let bullets = uploaded.bulletPoints ?? []
        guard bullets.count <= 5 else { return .error(.tooManyBulletPoints, "a message has at most 5 bullet points") }
        guard bullets.allSatisfy({ $0.text.count <= 66 }) else {
            return .error(.bulletPointTextTooLong, "a bullet point's text is over 66 characters")
        }
        guard (uploaded.image.map { [$0.altText] } ?? []).allSatisfy({ $0.count <= 150 }),
            bullets.allSatisfy({ $0.altText.count <= 150 })
        else {
            return .error(.altTextTooLong, "altText is over 150 characters")
        }
        if let position = uploaded.headerPosition, !["ABOVE_BODY", "ABOVE_IMAGE"].contains(position) {
            return .error(.generalBadRequest, "headerPosition must be ABOVE_BODY or ABOVE_IMAGE")
        }
        if uploaded.headerPosition == "ABOVE_IMAGE", uploaded.image == nil {
            return .error(.aboveImageRequiresAnImage, "headerPosition ABOVE_IMAGE needs an image")
        }
        let pictures =
            (uploaded.image.map { [($0.imageIdentifier, "FULL_SIZE")] } ?? [])
            + bullets.map { ($0.imageIdentifier, "BULLET_POINT") }
        return try change { (setup: inout RetentionSetup) throws(StoreError) -> APIResponse? in
            if setup.message(id) != nil { return .error(.messageAlreadyExists, "message \(id) is uploaded already") }
            for (picture, size) in pictures {
                guard let image = setup.image(picture) else { return .error(.imageNotFound, "no image \(picture)") }
                guard image.size == size else {
                    return .error(.invalidImageSize, "image \(image.id) is \(image.size); this place needs \(size)")
                }
            }
            setup.messages.append(
                RetentionMessage(
                    id: id, header: uploaded.header, body: uploaded.body,
                    imageID: uploaded.image.flatMap { Self.uuid($0.imageIdentifier) }, altText: uploaded.image?.altText,
                    headerPosition: uploaded.headerPosition,
                    bulletPoints: bullets.map {
                        RetentionBulletPoint(
                            text: $0.text, imageIdentifier: $0.imageIdentifier.lowercased(), altText: $0.altText)
                    },
                    state: setup.approvesAtOnce ? .approved : .pending
                ))
            return nil
        }
    }

    /// Deleting a message also takes it off every product and locale it was the default of.
    func deleteMessage(_ given: String) throws(StoreError) -> APIResponse {
        guard let id = Self.uuid(given) else { return .error(.generalBadRequest, "\"\(given)\" is not a UUID") }
        return try change { (setup: inout RetentionSetup) throws(StoreError) -> APIResponse? in
            guard setup.message(id) != nil else { return .error(.messageNotFound, "no message \(id)") }
            setup.messages.removeAll { $0.id == id }
            setup.defaults = setup.defaults.filter { $0.value != id }
            return nil
        }
    }

    func messageList() throws(StoreError) -> APIResponse {
        let messages = try server.retentionSetup().messages.map { message in
            RetentionMessageList.Item(messageIdentifier: message.id, messageState: message.state.rawValue)
        }
        return .json(RetentionMessageList(messageIdentifiers: messages))
    }

    // MARK: Default messages

    static func isLocale(_ text: String) -> Bool {
        text.range(of: #"^[a-z]{2,3}-[A-Z]{2}$"#, options: .regularExpression) != nil
    }

    func configureDefault(_ product: String, _ locale: String, _ request: APIRequest) throws(StoreError) -> APIResponse
    {
        guard Self.isLocale(locale) else {
            return .error(.invalidLocale, "\"\(locale)\" is not a locale such as en-US")
        }
        guard catalog.product(product)?.kind == .autoRenewableSubscription else {
            return .error(.generalBadRequest, "\"\(product)\" is not an auto-renewable subscription of this app")
        }
        guard let given = request.decodedBody(DefaultConfigurationRequest.self)?.messageIdentifier.value,
            let id = Self.uuid(given)
        else {
            return .error(.generalBadRequest, "messageIdentifier must be a UUID")
        }
        return try change { (setup: inout RetentionSetup) throws(StoreError) -> APIResponse? in
            guard let message = setup.message(id) else { return .error(.messageNotFound, "no message \(id)") }
            guard message.state == .approved else {
                return .error(.messageNotApproved, "message \(id) is \(message.state.rawValue), not APPROVED")
            }
            guard message.imageIDs.allSatisfy({ setup.image($0)?.state == .approved }) else {
                return .error(.imageNotApproved, "an image of message \(id) is not APPROVED")
            }
            setup.defaults[RetentionSetup.defaultKey(product: product, locale: locale)] = id
            return nil
        }
    }

    func defaultMessage(_ product: String, _ locale: String, delete: Bool) throws(StoreError) -> APIResponse {
        guard Self.isLocale(locale) else {
            return .error(.invalidLocale, "\"\(locale)\" is not a locale such as en-US")
        }
        let key = RetentionSetup.defaultKey(product: product, locale: locale)
        guard delete else {
            guard let id = try server.retentionSetup().defaults[key] else {
                return .error(.defaultMessageNotFound, "no default message for \(product) in \(locale)")
            }
            return .json(DefaultMessageResponse(messageIdentifier: id))
        }
        return try change { (setup: inout RetentionSetup) throws(StoreError) -> APIResponse? in
            guard setup.defaults.removeValue(forKey: key) != nil else {
                return .error(.defaultMessageNotFound, "no default message for \(product) in \(locale)")
            }
            return nil
        }
    }

    // MARK: The realtime URL

    /// The URL of the app's environment (Apple's sandbox and production hosts each keep their own).
    func configureRealtimeURL(_ request: APIRequest, environment: AppIdentity.Environment) throws(StoreError)
        -> APIResponse
    {
        guard let text = request.decodedBody(RealtimeURLRequest.self)?.realtimeURL.value,
            text.count <= 256, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host != nil
        else {
            return .error(
                .invalidRealtimeURL, "realtimeURL must be an http:// or https:// URL of at most 256 characters")
        }
        return try change { (setup: inout RetentionSetup) throws(StoreError) -> APIResponse? in
            setup.realtimeURLs[environment.rawValue] = text
            return nil
        }
    }

    func realtimeURL(delete: Bool, environment: AppIdentity.Environment) throws(StoreError) -> APIResponse {
        let missing = APIResponse.error(
            .realtimeURLNotFound, "no realtime URL is configured for \(environment.rawValue)")
        guard delete else {
            guard let url = try server.retentionSetup().realtimeURL(environment) else { return missing }
            return .json(RealtimeURLResponse(realtimeURL: url))
        }
        return try change { (setup: inout RetentionSetup) throws(StoreError) -> APIResponse? in
            setup.realtimeURLs.removeValue(forKey: environment.rawValue) == nil ? missing : nil
        }
    }
}
