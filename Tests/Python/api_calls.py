#!/usr/bin/env python3
"""Calls `storefront serve` with Apple's own AppStoreServerAPIClient (app-store-server-library).

Reads one JSON object on standard input:
  {"base": "http://127.0.0.1:PORT", "key": PEM, "keyId": "...", "issuerId": "...", "bundleId": "...",
   "calls": [{"call": NAME, ...arguments}]}
Writes a JSON array: per call {"ok": true, "result": {...}} or {"ok": false, "status": HTTP, "errorCode": N}.
Calls: transaction_info, finish (id), app_transaction, order (Look Up Order ID), set_app_account_token (id, token), history (v2; "version": "default" for
the client's default, v1), statuses, refunds, request_test, test_status, notification_history,
extend, mass_extend, mass_status, consumption (v2: consented, sample, delivery, percentage, preference),
consumption_v1 (the numbered fields),
Retention Messaging: upload_image (id, png: base64, size), delete_image, image_list, upload_message (id, header, body,
image, altText, headerPosition, bullets: [[text, image, altText]]), delete_message, message_list, default_message
(product, locale, message; "get" / "delete": true), realtime_url (url; "get" / "delete": true), performance_test (id),
performance_result (id).
raw (a request with its own headers: {"method", "path", "headers", "body", "auth": true for the client's token}).
"""
import json, sys

import requests
from appstoreserverlibrary.api_client import (APIException, AppStoreServerAPIClient, GetTransactionHistoryVersion,
                                              _get_cattrs_converter)
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
from appstoreserverlibrary.models.MassExtendRenewalDateRequest import MassExtendRenewalDateRequest
from appstoreserverlibrary.models.InAppOwnershipType import InAppOwnershipType
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.NotificationTypeV2 import NotificationTypeV2
from appstoreserverlibrary.models.Status import Status
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, ProductType, TransactionHistoryRequest
from appstoreserverlibrary.models.AccountTenure import AccountTenure
from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
from appstoreserverlibrary.models.ConsumptionRequestV1 import ConsumptionRequestV1
from appstoreserverlibrary.models.ConsumptionStatus import ConsumptionStatus
from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
from appstoreserverlibrary.models.DeliveryStatusV1 import DeliveryStatusV1
from appstoreserverlibrary.models.LifetimeDollarsPurchased import LifetimeDollarsPurchased
from appstoreserverlibrary.models.LifetimeDollarsRefunded import LifetimeDollarsRefunded
from appstoreserverlibrary.models.Platform import Platform
from appstoreserverlibrary.models.PlayTime import PlayTime
from appstoreserverlibrary.models.RefundPreference import RefundPreference
from appstoreserverlibrary.models.UserStatus import UserStatus
from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest
from appstoreserverlibrary.models.BulletPoint import BulletPoint
from appstoreserverlibrary.models.DefaultConfigurationRequest import DefaultConfigurationRequest
from appstoreserverlibrary.models.HeaderPosition import HeaderPosition
from appstoreserverlibrary.models.ImageSize import ImageSize
from appstoreserverlibrary.models.PerformanceTestRequest import PerformanceTestRequest
from appstoreserverlibrary.models.RealtimeUrlRequest import RealtimeUrlRequest
from appstoreserverlibrary.models.UploadMessageImage import UploadMessageImage
from appstoreserverlibrary.models.UploadMessageRequestBody import UploadMessageRequestBody
import base64
from uuid import UUID


def plain(value):
    return _get_cattrs_converter(type(value)).unstructure(value) if value is not None else None


def upload_message(client, call):
    image = UploadMessageImage(imageIdentifier=UUID(call["image"]), altText=call.get("altText", "")) if "image" in call else None
    bullets = [BulletPoint(text=t, imageIdentifier=UUID(i), altText=a) for t, i, a in call.get("bullets", [])] or None
    body = UploadMessageRequestBody(header=call["header"], body=call["body"], image=image, bulletPoints=bullets,
                                    headerPosition=HeaderPosition(call["headerPosition"]) if "headerPosition" in call else None)
    return client.upload_message(UUID(call["id"]), body)


def default_message(client, call):
    if call.get("get"):
        return client.get_default_message(call["product"], call["locale"])
    if call.get("delete"):
        return client.delete_default_message(call["product"], call["locale"])
    return client.configure_default_message(call["product"], call["locale"], DefaultConfigurationRequest(messageIdentifier=UUID(call["message"])))


def realtime_url(client, call):
    if call.get("get"):
        return client.get_realtime_url()
    if call.get("delete"):
        return client.delete_realtime_url()
    return client.configure_realtime_url(RealtimeUrlRequest(realtimeURL=call["url"]))


RETENTION = {
    "upload_image": lambda client, call: client.upload_image(
        UUID(call["id"]), base64.b64decode(call["png"]), ImageSize(call["size"]) if "size" in call else None),
    "delete_image": lambda client, call: client.delete_image(UUID(call["id"])),
    "image_list": lambda client, call: client.get_image_list(),
    "upload_message": upload_message,
    "delete_message": lambda client, call: client.delete_message(UUID(call["id"])),
    "message_list": lambda client, call: client.get_message_list(),
    "default_message": default_message,
    "realtime_url": realtime_url,
    "performance_test": lambda client, call: client.initiate_performance_test(PerformanceTestRequest(originalTransactionId=call["id"])),
    "performance_result": lambda client, call: client.get_performance_test_results(call["id"]),
}


def main():
    request = json.load(sys.stdin)
    client = AppStoreServerAPIClient(request["key"].encode(), request["keyId"], request["issuerId"], request["bundleId"], Environment.SANDBOX)
    client._base_url = request["base"]
    results = []
    last_test_token = None
    for call in request["calls"]:
        name = call["call"]
        try:
            if name == "transaction_info":
                result = client.get_transaction_info(call["id"])
            elif name == "finish":
                result = client.finish_transaction(call["id"])
            elif name == "history":
                history = TransactionHistoryRequest(
                    startDate=call.get("startDate"), endDate=call.get("endDate"), productIds=call.get("productIds"),
                    productTypes=[ProductType(t) for t in call["productTypes"]] if "productTypes" in call else None,
                    sort=Order(call["sort"]) if "sort" in call else None,
                    subscriptionGroupIdentifiers=call.get("groups"),
                    inAppOwnershipType=InAppOwnershipType(call["ownership"]) if "ownership" in call else None,
                    revoked=call.get("revoked"),
                )
                if call.get("version") == "default":
                    # The client's own default version (v1, deprecated), as a backend that names none calls it.
                    result = client.get_transaction_history(call["id"], call.get("revision"), history)
                else:
                    result = client.get_transaction_history(call["id"], call.get("revision"), history, GetTransactionHistoryVersion.V2)
            elif name == "statuses":
                result = client.get_all_subscription_statuses(call["id"], [Status(s) for s in call["status"]] if "status" in call else None)
            elif name == "refunds":
                result = client.get_refund_history(call["id"], call.get("revision"))
            elif name == "request_test":
                result = client.request_test_notification()
                last_test_token = result.testNotificationToken
            elif name == "test_status":
                # "previous": the token the last request_test of this list was given.
                token = last_test_token if call["token"] == "previous" else call["token"]
                result = client.get_test_notification_status(token)
            elif name == "notification_history":
                history = NotificationHistoryRequest(
                    startDate=call["startDate"], endDate=call["endDate"],
                    notificationType=NotificationTypeV2(call["type"]) if "type" in call else None,
                    transactionId=call.get("transactionId"), onlyFailures=call.get("onlyFailures"),
                )
                result = client.get_notification_history(call.get("paginationToken"), history)
            elif name == "extend":
                result = client.extend_subscription_renewal_date(call["id"], ExtendRenewalDateRequest(
                    extendByDays=call["days"], extendReasonCode=ExtendReasonCode(call.get("reason", 1)), requestIdentifier=call["request"]))
            elif name == "mass_extend":
                result = client.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
                    extendByDays=call["days"], extendReasonCode=ExtendReasonCode(call.get("reason", 1)), requestIdentifier=call["request"],
                    productId=call["productId"]))
            elif name == "mass_status":
                result = client.get_status_of_subscription_renewal_date_extensions(call["request"], call["productId"])
            elif name == "consumption":
                result = client.send_consumption_information(call["id"], ConsumptionRequest(
                    customerConsented=call.get("consented", True), sampleContentProvided=call.get("sample", False),
                    deliveryStatus=DeliveryStatus(call.get("delivery", "DELIVERED")), consumptionPercentage=call.get("percentage"),
                    refundPreference=RefundPreference(call["preference"]) if "preference" in call else None))
            elif name == "consumption_v1":
                result = client.send_consumption_data(call["id"], ConsumptionRequestV1(
                    customerConsented=call.get("consented", True), consumptionStatus=ConsumptionStatus(call.get("status", 1)),
                    platform=Platform(1), sampleContentProvided=False, deliveryStatus=DeliveryStatusV1(0), appAccountToken="",
                    accountTenure=AccountTenure(2), playTime=PlayTime(3), lifetimeDollarsRefunded=LifetimeDollarsRefunded(0),
                    lifetimeDollarsPurchased=LifetimeDollarsPurchased(1), userStatus=UserStatus(1)))
            elif name == "app_transaction":
                result = client.get_app_transaction_info(call["id"])
            elif name == "order":
                result = client.look_up_order_id(call["order"])
            elif name == "set_app_account_token":
                result = client.set_app_account_token(call["id"], UpdateAppAccountTokenRequest(appAccountToken=call["token"]))
            elif name in RETENTION:
                result = RETENTION[name](client, call)
            elif name == "raw":
                headers = dict(client._get_headers()) if call.get("auth") else {}
                headers.update(call.get("headers", {}))
                response = requests.request(call["method"], request["base"] + call["path"], headers=headers,
                                            data=call.get("body", "").encode(), timeout=30)
                body = response.json() if response.headers.get("content-type") == "application/json" else None
                results.append({"ok": response.status_code < 300, "status": response.status_code,
                                "errorCode": (body or {}).get("errorCode"), "contentType": response.headers.get("content-type")})
                continue
            else:
                raise ValueError(name)
            results.append({"ok": True, "result": plain(result)})
        except APIException as error:
            results.append({"ok": False, "status": error.http_status_code, "errorCode": error.raw_api_error})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
