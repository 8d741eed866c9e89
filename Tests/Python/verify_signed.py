#!/usr/bin/env python3
"""Verifies Storefront's signed data with Apple's app-store-server-library, checks on.

Reads one JSON object on standard input:
  {"root": BASE64_DER, "bundleId": "...", "appAppleId": 123 | null, "environment": "Sandbox",
   "items": [{"kind": "transaction" | "renewal" | "appTransaction" | "notification" | "realtime", "jws": "..."}]}
Writes one JSON array: for each item {"ok": true, "decoded": {...}} or
{"ok": false, "status": "VERIFICATION_FAILURE"} (a VerificationStatus name). The tests of Storefront judge by it.
"""
import base64, json, sys
from uuid import UUID

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException


def plain(value):
    """A decoded model as JSON-friendly data: enums by their raw values."""
    if hasattr(value, "__attrs_attrs__"):
        return {a.name: plain(getattr(value, a.name)) for a in value.__attrs_attrs__ if getattr(value, a.name) is not None}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, UUID):
        return str(value)
    if hasattr(value, "value") and not isinstance(value, (str, int, float, bool)):
        return value.value
    return value


def main():
    request = json.load(sys.stdin)
    verifier = SignedDataVerifier(
        root_certificates=[base64.b64decode(request["root"])],
        enable_online_checks=False,
        environment=Environment(request.get("environment", "Sandbox")),
        bundle_id=request["bundleId"],
        app_apple_id=request.get("appAppleId"),
    )
    methods = {
        "transaction": verifier.verify_and_decode_signed_transaction,
        "renewal": verifier.verify_and_decode_renewal_info,
        "appTransaction": verifier.verify_and_decode_app_transaction,
        "notification": verifier.verify_and_decode_notification,
        "realtime": verifier.verify_and_decode_realtime_request,
    }
    results = []
    for item in request["items"]:
        try:
            decoded = methods[item["kind"]](item["jws"])
            results.append({"ok": True, "decoded": plain(decoded)})
        except VerificationException as error:
            results.append({"ok": False, "status": error.status.name})
    json.dump(results, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
