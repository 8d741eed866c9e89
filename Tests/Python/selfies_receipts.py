#!/usr/bin/env python3
"""verifyReceipt judged by a client nobody here wrote (V10): a year of RW Selfies plans told through
the command line against a running `storefront serve`, each customer's receipt validated by inapppy
at checkpoints along the way, the way the Selfies app's SelfieService does.

  selfies_receipts.py STOREFRONT_BINARY WORK_DIR [--database postgres://...]

The year: renewals, an upgrade, Family Sharing of the plan, a billing retry and its recovery, a
refund of the current period, an offer code, a plan left to expire. At each checkpoint, for each
customer:

  1. inapppy validates the receipt from the device (production first: 21007, then the sandbox);
  2. every transaction of latest_receipt_info equals, field for field, the signed transaction Get
     Transaction Info answers for its id, decoded by Apple's library; the ids are exactly Get
     Transaction History's; every value is a string and every date's three forms agree;
  3. each plan's status and expiry, read from the answer, are what Get All Subscription Statuses
     says for the same customer;
  4. exclude-old-transactions leaves one transaction per plan, the newest.

Then SelfieService (selfie_service.py) takes `storefront receipt --post`'s upload and answers a
session with the subscription, active before the refund and not after. A wrong shared secret is
21004; a rotated one stops working.

Prints one JSON object {"checkpoints", "validated", "failures": [...]}; exits 1 on a failure, 2 when
the story itself could not be told.
"""
import argparse, datetime, json, os, sys, time
from zoneinfo import ZoneInfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conformance import MONTHLY, ONE_A_WEEK, SELFIES, Receiver, Store, StoryFailed, history  # noqa: E402
from selfie_service import SelfieService, validate  # noqa: E402

from appstoreserverlibrary.models.Environment import Environment  # noqa: E402
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier  # noqa: E402
from inapppy import InAppPyValidationError  # noqa: E402

PACIFIC = ZoneInfo("America/Los_Angeles")


def date_forms(entry, where, failures):
    """Every `x_ms` has its `x` in Etc/GMT and `x_pst` in America/Los_Angeles, all strings."""
    for key, value in entry.items():
        if not isinstance(value, str):
            failures.append(f"{where}.{key} is {json.dumps(value)}, Apple sends a string")
        if not key.endswith("_ms"):
            continue
        base = key[:-3]
        instant = datetime.datetime.fromtimestamp(int(value) / 1000, datetime.timezone.utc)
        if entry.get(base) != instant.strftime("%Y-%m-%d %H:%M:%S Etc/GMT"):
            failures.append(f"{where}.{base} is {entry.get(base)!r} for {key} {value}")
        if entry.get(base + "_pst") != instant.astimezone(PACIFIC).strftime("%Y-%m-%d %H:%M:%S America/Los_Angeles"):
            failures.append(f"{where}.{base}_pst is {entry.get(base + '_pst')!r} for {key} {value}")


def as_text(value):
    return None if value is None else str(value)


def legacy(decoded):
    """What verifyReceipt must say of a transaction Apple's library decoded."""
    discount = decoded.rawOfferDiscountType
    return {
        "transaction_id": decoded.transactionId, "original_transaction_id": decoded.originalTransactionId,
        "product_id": decoded.productId, "quantity": as_text(decoded.quantity),
        "purchase_date_ms": as_text(decoded.purchaseDate), "original_purchase_date_ms": as_text(decoded.originalPurchaseDate),
        "expires_date_ms": as_text(decoded.expiresDate), "web_order_line_item_id": decoded.webOrderLineItemId,
        "subscription_group_identifier": decoded.subscriptionGroupIdentifier,
        "in_app_ownership_type": decoded.rawInAppOwnershipType, "cancellation_date_ms": as_text(decoded.revocationDate),
        "cancellation_reason": as_text(decoded.rawRevocationReason), "is_upgraded": "true" if decoded.isUpgraded else None,
        "app_account_token": decoded.appAccountToken or None,
        "is_trial_period": "true" if discount == "FREE_TRIAL" else "false",
        "is_in_intro_offer_period": "true" if decoded.rawOfferType == 1 and discount != "FREE_TRIAL" else "false",
        "promotional_offer_id": decoded.offerIdentifier if decoded.rawOfferType == 2 else None,
        "offer_code_ref_name": decoded.offerIdentifier if decoded.rawOfferType == 3 else None,
    }


def receipt_status(answer, original):
    """Get All Subscription Statuses' status (1 active, 2 expired, 3 billing retry, 4 grace, 5
    revoked) and the expiry, as a backend reads them from a verifyReceipt answer."""
    newest = next(t for t in answer["latest_receipt_info"] if t["original_transaction_id"] == original)
    pending = next((p for p in answer["pending_renewal_info"] if p["original_transaction_id"] == original), {})
    now = int(answer["receipt"]["request_date_ms"])
    expires = int(newest["expires_date_ms"])
    if "cancellation_date_ms" in newest:
        return 5, expires
    if pending.get("is_in_billing_retry_period") == "1":
        return (4 if int(pending.get("grace_period_expires_date_ms", "0")) > now else 3), expires
    return (1 if expires > now else 2), expires


class Judge:
    def __init__(self, store, secret, failures):
        self.store, self.secret, self.failures = store, secret, failures
        self.api = store.client(SELFIES)
        self.headers = lambda: dict(self.api._get_headers())
        self.verifier = SignedDataVerifier([store.root], False, Environment.SANDBOX, SELFIES, 1234)
        self.validated = 0
        # What the answers showed, so that the test knows the story reached each case.
        self.seen = set()

    def receipt(self, customer):
        return self.store.cli(["receipt", "--base64"], json_out=False, device=customer).strip()

    def checkpoint(self, name, customers):
        for customer in customers:
            where = f"{name}, {customer}"
            receipt = self.receipt(customer)
            try:
                answer = validate(self.store.base, receipt, self.secret)
                newest_only = validate(self.store.base, receipt, self.secret, exclude_old=True)
            except InAppPyValidationError as error:
                self.failures.append(f"{where}: inapppy refused the receipt: {error}")
                continue
            self.validated += 1
            self.judge(answer, newest_only, where)
        return name

    def judge(self, answer, newest_only, where):
        failures = self.failures
        if answer.get("environment") != "Sandbox":
            failures.append(f"{where}: environment {answer.get('environment')!r}")
        latest = answer.get("latest_receipt_info", [])
        for entry in latest + answer["receipt"]["in_app"] + answer.get("pending_renewal_info", []):
            date_forms(entry, f"{where}: {entry.get('transaction_id') or entry.get('original_transaction_id')}", failures)
        for entry in latest:
            info = self.api.get_transaction_info(entry["transaction_id"])
            decoded = self.verifier.verify_and_decode_signed_transaction(info.signedTransactionInfo)
            expected = legacy(decoded)
            self.seen |= {name for name, shown in (
                ("family shared", entry.get("in_app_ownership_type") == "FAMILY_SHARED"), ("offer code", "offer_code_ref_name" in entry),
                ("upgraded", "is_upgraded" in entry), ("free trial", entry.get("is_trial_period") == "true"),
                ("refunded", "cancellation_date" in entry)) if shown}
            for key, value in expected.items():
                if entry.get(key) != value:
                    failures.append(f"{where}: transaction {entry['transaction_id']}: {key} is {entry.get(key)!r}, Get Transaction Info says {value!r}")
            extra = set(entry) - set(expected) - {k[:-3] for k in expected if k.endswith("_ms")} - {k[:-3] + "_pst" for k in expected if k.endswith("_ms")}
            if extra:
                failures.append(f"{where}: transaction {entry['transaction_id']} has fields Apple's transaction does not explain: {sorted(extra)}")
        purchases = [int(t["purchase_date_ms"]) for t in latest]
        if purchases != sorted(purchases, reverse=True):
            failures.append(f"{where}: latest_receipt_info is not newest first")
        if latest:
            listed = {t["transaction_id"] for t in latest}
            every = {t["transactionId"] for t in history(self.api, latest[0]["transaction_id"], None, self.headers, failures) or []}
            if listed != every:
                failures.append(f"{where}: latest_receipt_info lists {sorted(listed)}, Get Transaction History {sorted(every)}")
        originals = {p["original_transaction_id"] for p in answer.get("pending_renewal_info", [])}
        for original in sorted(originals):
            status, expires = receipt_status(answer, original)
            response = self.api.get_all_subscription_statuses(original)
            items = [i for group in response.data for i in group.lastTransactions if i.originalTransactionId == original]
            if len(items) != 1:
                failures.append(f"{where}: Get All Subscription Statuses has {len(items)} entries for {original}")
                continue
            told = self.verifier.verify_and_decode_signed_transaction(items[0].signedTransactionInfo)
            self.seen.add(f"status {status}")
            if (items[0].rawStatus, told.expiresDate) != (status, expires):
                failures.append(f"{where}: plan {original}: the receipt says status {status} until {expires}, "
                                f"Get All Subscription Statuses {items[0].rawStatus} until {told.expiresDate}")
        kept = newest_only.get("latest_receipt_info", [])
        per_plan = {}
        for entry in latest:
            per_plan.setdefault(entry["original_transaction_id"], entry["transaction_id"])
        if sorted(t["transaction_id"] for t in kept) != sorted(per_plan.values()):
            failures.append(f"{where}: exclude-old-transactions kept {[t['transaction_id'] for t in kept]}, the newest of each plan are {sorted(per_plan.values())}")


def story(store, judge, log):
    dev = lambda *a, **k: store.cli(list(a), developer=True, **k)
    advance = lambda text: dev("clock", "advance", text, json_out=False)
    def cli(customer, *arguments, **options):
        return store.cli(list(arguments), device=customer, **options)

    dev("clock", "freeze", "2026-01-05T12:00:00Z", json_out=False)
    dev("app", "set", "--bundle-id", SELFIES, "--app-apple-id", "1234", "--environment", "Sandbox", json_out=False)
    for name in ("sam", "kim", "lee"):
        cli(name, "account", "signup", name, json_out=False)
    # sam: One a Week, its free week, then renewals; an upgrade to All Access at once.
    cli("sam", "buy", ONE_A_WEEK, json_out=False)
    log.append(judge.checkpoint("the free week", ["sam", "kim"]))
    advance("40d")
    cli("sam", "buy", MONTHLY, json_out=False)
    advance("1mo")
    log.append(judge.checkpoint("renewed after an upgrade", ["sam"]))
    # The plan shared with kim.
    cli("sam", "family", "create", json_out=False)
    cli("sam", "family", "add", "kim", json_out=False)
    cli("kim", "family", "accept", json_out=False)
    cli("sam", "family", "share", MONTHLY, "on", json_out=False)
    advance("1mo")
    log.append(judge.checkpoint("shared with the family", ["sam", "kim"]))
    # lee: an offer code.
    code = dev("offer-codes", "create", "SPRING-PROMO")
    codes = code.get("codes") if isinstance(code, dict) else None
    if not codes:
        raise StoryFailed(f"offer-codes create answered {code!r}")
    cli("lee", "redeem", codes[0], json_out=False)
    log.append(judge.checkpoint("an offer code", ["lee"]))
    # A billing retry, then its recovery.
    dev("grace", "off", json_out=False)
    dev("billing", "fail", json_out=False)
    advance("1mo")
    log.append(judge.checkpoint("in billing retry", ["sam", "kim"]))
    dev("billing", "ok", json_out=False)
    cli("sam", "force-renew", MONTHLY, json_out=False)
    advance("3mo")
    cli("lee", "cancel", MONTHLY, json_out=False)
    log.append(judge.checkpoint("recovered and renewed", ["sam", "kim", "lee"]))
    advance("4mo")
    log.append(judge.checkpoint("lee's plan expired", ["lee", "sam"]))


def selfie_service_checks(store, judge, secret, failures, refund):
    """The upload the Selfies app makes, before and after a refund of the current period."""
    service = SelfieService(store.base, secret).start()
    try:
        before = json.loads(store.cli(["receipt", "--post", service.url], json_out=False, device="sam"))
        current = before.get("currentSubscription") or {}
        if not before.get("sessionId") or not current.get("isActive"):
            failures.append(f"SelfieService before the refund: {before}")
        refund()
        after = json.loads(store.cli(["receipt", "--post", service.url], json_out=False, device="sam"))
        current = after.get("currentSubscription") or {}
        if current.get("isActive") or not current.get("isCancelled"):
            failures.append(f"SelfieService after a refund of the current period says {after}")
        judge.checkpoint("refunded", ["sam", "kim"])
    finally:
        service.server.shutdown()


def secret_checks(store, judge, failures):
    receipt = judge.receipt("sam")
    for wrong in ("", "0" * 32):
        try:
            validate(store.base, receipt, wrong or "not-the-secret")
            failures.append(f"a wrong shared secret {wrong!r} was accepted")
        except InAppPyValidationError as error:
            if (error.raw_response or {}).get("status") != 21004:
                failures.append(f"a wrong shared secret answered {error.raw_response}, Apple answers 21004")
    primary = store.cli(["shared-secret", "--primary", "--state-dir", store.server_state], json_out=False, server_side=True).strip()
    validate(store.base, receipt, primary)
    old = judge.secret
    judge.secret = store.cli(["shared-secret", "--rotate", "--state-dir", store.server_state], json_out=False, server_side=True).strip()
    try:
        validate(store.base, receipt, old)
        failures.append("the shared secret before --rotate still works")
    except InAppPyValidationError:
        pass
    validate(store.base, receipt, judge.secret)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("work")
    parser.add_argument("--database", default=None)
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    failures, log = [], []
    store = None
    judge = None
    try:
        store = Store(args.binary, os.path.join(args.work, "selfies"), os.path.join(root, "assets/selfies.json"), args.database, Receiver())
        secret = store.cli(["shared-secret", "--state-dir", store.server_state], json_out=False, server_side=True).strip()
        judge = Judge(store, secret, failures)
        story(store, judge, log)
        secret_checks(store, judge, failures)

        def refund():
            entries = store.cli(["receipt"], device="sam")["entries"]
            paid = [e for e in entries if e.get("event") in ("purchase", "renewal") and e.get("kind") == "autoRenewableSubscription"]
            store.cli(["refund", paid[-1]["id"]], json_out=False, developer=True, device="sam")

        selfie_service_checks(store, judge, judge.secret, failures, refund)
        log.append("refunded")
    except StoryFailed as error:
        json.dump({"checkpoints": log, "error": str(error), "failures": failures}, sys.stdout, indent=1)
        return 2
    finally:
        if store:
            store.stop()
    json.dump({"checkpoints": log, "validated": judge.validated, "seen": sorted(judge.seen), "failures": failures}, sys.stdout, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
