#!/usr/bin/env python3
"""Reads a Storefront app receipt as a backend moving off verifyReceipt would.

Reads one JSON object on standard input: {"items": [{"receipt": BASE64}]}.
Writes one JSON array: per item {"extracted": the transaction id Apple's ReceiptUtility finds (or an
"error"), "app": {type: value}, "inApps": [{type: value}]}, the attributes decoded with the `asn1`
package Apple's library itself reads receipts with: strings as text, integers as numbers.
"""
import base64, json, sys

import asn1
from appstoreserverlibrary.receipt_utility import ReceiptUtility


def decode(data):
    decoder = asn1.Decoder()
    decoder.start(data)
    return decoder.read()[1]


def attributes(data):
    """A SET of SEQUENCE {type, version, OCTET STRING value}: {type: the value decoded}."""
    found = {}
    for kind, version, value in decode(data):
        found.setdefault(kind, []).append(value)
    return found


def read(receipt):
    result = {}
    try:
        result["extracted"] = ReceiptUtility().extract_transaction_id_from_app_receipt(receipt)
    except ValueError as error:
        result["error"] = str(error)
        return result
    # The content, as ReceiptUtility reaches it: ContentInfo → SignedData → encapContentInfo → eContent.
    content = decode(base64.b64decode(receipt))[1][0][2][1][0]
    top = attributes(content)
    result["app"] = {str(k): decode(v[0]) for k, v in top.items() if k != 17}
    result["inApps"] = [{str(k): decode(v[0]) for k, v in attributes(item).items()} for item in top.get(17, [])]
    return result


def main():
    request = json.load(sys.stdin)
    json.dump([read(item["receipt"]) for item in request["items"]], sys.stdout)


if __name__ == "__main__":
    main()
