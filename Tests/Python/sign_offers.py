#!/usr/bin/env python3
"""Signs promotional offers and introductory offer eligibility with Apple's
app-store-server-library, as a developer's server does.

Reads one JSON object on standard input:
  {"key": PEM, "keyId": "...", "issuerId": "...", "bundleId": "...",
   "items": [{"form": "original", "productId": "...", "offerId": "...", "applicationUsername": "",
              "nonce": UUID | null, "timestamp": MS},
             {"form": "v2", "productId": "...", "offerId": "...", "transactionId": "..." | null},
             {"form": "intro", "productId": "...", "allow": true | false, "transactionId": "..."},
             {"form": "claims", "audience": "...", "claims": {...}}]}
Writes one JSON array: for each item {"signature": ..., "nonce": ..., "timestamp": ...} (the
original form) or {"jws": ...} (V2, intro, claims). "claims" signs what a feature's creator would,
with other feature claims: the library adds bid, iss, aud, iat and nonce as for every feature.
Storefront's tests buy with them.
"""
import json, sys, uuid

from appstoreserverlibrary.jws_signature_creator import (
    IntroductoryOfferEligibilitySignatureCreator,
    JWSSignatureCreator,
    PromotionalOfferV2SignatureCreator,
)
from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator


def main():
    request = json.load(sys.stdin)
    key = request["key"].encode()
    original = PromotionalOfferSignatureCreator(key, request["keyId"], request["bundleId"])
    v2 = PromotionalOfferV2SignatureCreator(key, request["keyId"], request["issuerId"], request["bundleId"])
    intro = IntroductoryOfferEligibilitySignatureCreator(key, request["keyId"], request["issuerId"], request["bundleId"])
    results = []
    for item in request["items"]:
        if item["form"] == "original":
            nonce = uuid.UUID(item["nonce"]) if item.get("nonce") else uuid.uuid4()
            signature = original.create_signature(
                item["productId"], item["offerId"], item.get("applicationUsername", ""), nonce, int(item["timestamp"])
            )
            results.append({"signature": signature, "nonce": str(nonce), "timestamp": int(item["timestamp"])})
        elif item["form"] == "intro":
            results.append({"jws": intro.create_signature(item["productId"], item["allow"], item["transactionId"])})
        elif item["form"] == "claims":
            creator = JWSSignatureCreator(item["audience"], key, request["keyId"], request["issuerId"], request["bundleId"])
            results.append({"jws": creator._create_signature(dict(item["claims"]))})
        else:
            results.append({"jws": v2.create_signature(item["productId"], item["offerId"], item.get("transactionId"))})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
