// The App Store Server API's request bodies as Codable types, named and shaped as Apple's
// app-store-server-library declares them (ConsumptionRequest, ExtendRenewalDateRequest, …), read
// by JSONDecoder. JSONDecoder is as strict as Apple's types: `true` is not a number, `1` is not a
// boolean, 1.5 is not a whole number. A field sent with the wrong JSON type is kept as such, so each
// check answers with Apple's error code for that field, not one "bad body" for all.
import Foundation

/// One field of a request body: not sent (or null), sent as the type Apple declares, or sent as
/// another JSON type.
enum BodyField<Value: Decodable & Sendable>: Decodable, Sendable {
    case absent
    case value(Value)
    case wrongType

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .absent
        } else if let value = try? container.decode(Value.self) {
            self = .value(value)
        } else {
            self = .wrongType
        }
    }

    /// The value, when it was sent as Apple declares it.
    var value: Value? {
        if case .value(let value) = self { value } else { nil }
    }

    /// Whether something was sent (of any type).
    var isSent: Bool {
        if case .absent = self { false } else { true }
    }
}

extension KeyedDecodingContainer {
    /// A field that is not in the body reads as `.absent`, as Apple's optional fields do.
    func decode<Value>(_ type: BodyField<Value>.Type, forKey key: Key) throws -> BodyField<Value> {
        try decodeIfPresent(type, forKey: key) ?? .absent
    }
}

extension BodyField: Encodable where Value: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

extension KeyedEncodingContainer {
    /// Written back as sent, leaving out what was not sent as Apple declares it.
    mutating func encode<Value: Encodable>(_ field: BodyField<Value>, forKey key: Key) throws {
        if let value = field.value { try encode(value, forKey: key) }
    }
}

extension APIRequest {
    /// The body as `Body`, or nil when it is not a JSON object.
    func decodedBody<Body: Decodable>(_ type: Body.Type) -> Body? {
        try? JSONDecoder().decode(type, from: body)
    }
}

/// Send Consumption Information, version 2 (Apple's ConsumptionRequest).
struct ConsumptionRequest: Codable, Sendable {
    var customerConsented: BodyField<Bool>
    var sampleContentProvided: BodyField<Bool>
    var deliveryStatus: BodyField<String>
    var consumptionPercentage: BodyField<Int>
    var refundPreference: BodyField<String>
}

/// Send Consumption Information, version 1 (Apple's ConsumptionRequestV1): numbered fields.
struct ConsumptionRequestV1: Codable, Sendable {
    var customerConsented: BodyField<Bool>
    var sampleContentProvided: BodyField<Bool>
    var consumptionStatus: BodyField<Int>
    var platform: BodyField<Int>
    var deliveryStatus: BodyField<Int>
    var accountTenure: BodyField<Int>
    var playTime: BodyField<Int>
    var lifetimeDollarsRefunded: BodyField<Int>
    var lifetimeDollarsPurchased: BodyField<Int>
    var userStatus: BodyField<Int>
    var appAccountToken: BodyField<String>
    var refundPreference: BodyField<Int>
}

/// Extend a Subscription Renewal Date (ExtendRenewalDateRequest), and for all active subscribers
/// (MassExtendRenewalDateRequest), which adds the product and the storefronts.
struct ExtendRenewalDateRequest: Codable, Sendable {
    var extendByDays: BodyField<Int>
    var extendReasonCode: BodyField<Int>
    var requestIdentifier: BodyField<String>
    var productId: BodyField<String>
    var storefrontCountryCodes: BodyField<[String]>
}

/// Set App Account Token (UpdateAppAccountTokenRequest).
struct UpdateAppAccountTokenRequest: Codable, Sendable {
    var appAccountToken: BodyField<String>
}

/// Get Notification History (NotificationHistoryRequest): milliseconds since 1970.
struct NotificationHistoryRequest: Codable, Sendable {
    var startDate: BodyField<Int64>
    var endDate: BodyField<Int64>
    var notificationType: BodyField<String>
    var notificationSubtype: BodyField<String>
    var transactionId: BodyField<String>
    var onlyFailures: BodyField<Bool>
}

/// Configure Default Message (DefaultConfigurationRequest).
struct DefaultConfigurationRequest: Codable, Sendable {
    var messageIdentifier: BodyField<String>
}

/// Configure Realtime URL.
struct RealtimeURLRequest: Codable, Sendable {
    var realtimeURL: BodyField<String>
}

/// Initiate Performance Test (PerformanceTestRequest).
struct PerformanceTestRequest: Codable, Sendable {
    var originalTransactionId: BodyField<String>
}
