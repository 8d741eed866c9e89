#!/usr/bin/env python3
"""Apple-exact conformance (issue 25): a long seeded story told through the command line against a
running `storefront serve`, judged by Apple's own app-store-server-library.

  conformance.py STOREFRONT_BINARY WORK_DIR [--database postgres://...] [--seed N]

The story runs on two catalogs (RW Selfies: subscriptions of every kind; the comics: one-time
purchases, Family Sharing, refund requests), each in its own server state folder, with the
notifications going to a receiver in this process. Then the properties are checked:

  1. every notification the receiver got verifies with Apple's SignedDataVerifier;
  2. every signedTransactionInfo in a notification is answered by Get Transaction Info with the
     same transaction;
  3. its originalTransactionId equals the renewal info's;
  4. every JSON value (notifications, their transactions and renewal infos, Server API answers)
     has the type Apple's model classes declare (an integer is never a boolean);
  5. every filter of Get Transaction History returns exactly the transactions that match it, and
     Get Refund History exactly the refunded ones (revoked and PURCHASED);
  6. one subscription group of one account keeps one originalTransactionId (resubscribes
     included), and every subscription transaction carries a webOrderLineItemId;
  7. a RESCIND_CONSENT's appData carries an app transaction Apple's verifier accepts, whose
     appTransactionId Get App Transaction Info answers with the same customer;
  8. every auto-renewable transaction has an expiresDate;
  9. a commitment year (a third catalog, monthly plans with a 12-month commitment) follows Apple's
     lifecycle of them: each commitment's months are numbered 1, 2, 3… with one price, a
     commitmentPrice of twelve times it and a commitmentExpiresDate that moves only later (a billing
     recovery); a failed month has no grace period; a price increase of the monthly plan names the
     next commitment's price in the renewal info Get All Subscription Statuses signs; and each
     account's story ends as the lifecycle says.

The story runs on three catalogs; the third (written by this script) sells one-year plans monthly.
Prints one JSON object: {"seed", "notifications": {TYPE: count}, "failures": [...]}; exits 1 when
there is a failure, 2 when the story itself could not be told.
"""
import argparse, base64, http.server, json, os, random, subprocess, sys, threading, time, typing

import requests
from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
from appstoreserverlibrary.models.HistoryResponse import HistoryResponse
from appstoreserverlibrary.models.InAppOwnershipType import InAppOwnershipType
from appstoreserverlibrary.models.JWSRenewalInfoDecodedPayload import JWSRenewalInfoDecodedPayload
from appstoreserverlibrary.models.JWSTransactionDecodedPayload import JWSTransactionDecodedPayload
from appstoreserverlibrary.models.MassExtendRenewalDateRequest import MassExtendRenewalDateRequest
from appstoreserverlibrary.models.MassExtendRenewalDateStatusResponse import MassExtendRenewalDateStatusResponse
from appstoreserverlibrary.models.RefundHistoryResponse import RefundHistoryResponse
from appstoreserverlibrary.models.ResponseBodyV2DecodedPayload import ResponseBodyV2DecodedPayload
from appstoreserverlibrary.models.StatusResponse import StatusResponse
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, ProductType, TransactionHistoryRequest
from appstoreserverlibrary.models.AppData import AppData
from appstoreserverlibrary.models.AppTransaction import AppTransaction
from appstoreserverlibrary.models.Data import Data
from appstoreserverlibrary.models.Summary import Summary
from appstoreserverlibrary.models.TransactionInfoResponse import TransactionInfoResponse
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

SELFIES = "com.storefront.selfies"
MONTHLY = "com.storefront.selfies.sub.allaccess.monthly"
WEEKLY = "com.storefront.selfies.sub.allaccess"
ONE_A_WEEK = "com.storefront.selfies.sub.oneaweek.monthly"


class StoryFailed(Exception):
    pass


def payload_of(jws):
    part = jws.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


# MARK: JSON types against Apple's model classes

def declared(model):
    """{json key: python type} from an attrs model: a field's raw companion (rawType for type) wins."""
    fields = {a.name: a.type for a in model.__attrs_attrs__}
    table = {}
    for name, kind in fields.items():
        if name.startswith("raw") and name[3:4].isupper():
            continue
        raw = "raw" + name[0].upper() + name[1:]
        table[name] = fields.get(raw, kind)
    return table


def plain_type(kind):
    """int, str, bool, float, list, dict or a model class, from an annotation such as Optional[int]."""
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    origin = typing.get_origin(kind)
    if origin is typing.Union and args:
        return plain_type(args[0])
    if origin in (list, typing.List):
        return list
    if isinstance(kind, type):
        return kind
    return object


def check_types(value, model, where, failures):
    if not isinstance(value, dict):
        failures.append(f"{where}: expected an object, found {type(value).__name__}")
        return
    table = declared(model)
    for key, item in value.items():
        if key not in table or item is None:
            continue
        expected = plain_type(table[key])
        if expected is object:
            continue
        if hasattr(expected, "__attrs_attrs__"):
            check_types(item, expected, f"{where}.{key}", failures)
            continue
        if expected is int:
            good = type(item) is int
        elif expected is float:
            good = type(item) in (int, float)
        elif expected is bool:
            good = type(item) is bool
        elif expected is str:
            good = type(item) is str
        elif expected is list:
            good = type(item) is list
        else:
            good = True
        if not good:
            failures.append(f"{where}.{key} is {json.dumps(item)} ({type(item).__name__}); Apple's {model.__name__} declares {expected.__name__}")


# MARK: The receiver

class Receiver:
    def __init__(self):
        self.bodies = []
        lock = threading.Lock()
        bodies = self.bodies

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with lock:
                    bodies.append(body)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/notifications"


# MARK: One catalog's story

class Store:
    """A server state folder, `storefront serve` over it, and devices of a client folder using it."""

    def __init__(self, binary, folder, catalog, database, receiver):
        if callable(catalog):
            catalog = catalog(folder)
        self.binary, self.folder, self.catalog = binary, folder, catalog
        os.makedirs(folder, exist_ok=True)
        self.server_state = os.path.join(folder, "server")
        self.client_state = os.path.join(folder, "client")
        arguments = [binary, "serve", "--port", "0", "--state-dir", self.server_state, "--catalog", catalog]
        if database:
            arguments += ["--database", database]
        # STOREFRONT_STRICT_THREADS: the server ends if its blocking work runs on a task's thread.
        self.process = subprocess.Popen(
            arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=dict(os.environ, STOREFRONT_STRICT_THREADS="1"),
        )
        line = self.process.stdout.readline()
        if "listening on " not in line:
            raise StoryFailed(f"serve did not start: {line!r}")
        self.base = line.strip().split("listening on ")[-1]
        self.environment = dict(os.environ)
        self.environment.update({
            "STOREFRONT_SERVER": self.base, "STOREFRONT_STATE_DIR": self.client_state, "STOREFRONT_CATALOG": catalog,
            "STOREFRONT_PASSWORD": "pw", "NO_COLOR": "1",
        })
        token = self.cli(["developer-token", "--state-dir", self.server_state], json_out=False, server_side=True).strip()
        self.developer = dict(self.environment, STOREFRONT_DEVELOPER_TOKEN=token)
        self.cli(["webhook", "set", receiver.url], developer=True)
        key_file = os.path.join(folder, "key.p8")
        key = self.cli(["keys", "create", "--out", key_file], developer=True)
        root = os.path.join(folder, "root.der")
        self.cli(["certificate", "--der", root, "--state-dir", self.server_state], json_out=False, server_side=True)
        with open(root, "rb") as file:
            self.root = file.read()
        with open(key_file, "rb") as file:
            self.key = (file.read(), key["keyId"], key["issuerId"])

    def cli(self, arguments, json_out=True, developer=False, server_side=False, device="default", allow_failure=False):
        environment = self.developer if developer else self.environment
        if server_side:
            environment = {k: v for k, v in environment.items() if k not in ("STOREFRONT_SERVER", "STOREFRONT_STATE_DIR")}
        command = [self.binary] + arguments + (["--json"] if json_out else [])
        if not server_side:
            command += ["--device", device]
        done = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            if allow_failure:
                return None
            raise StoryFailed(f"storefront {' '.join(arguments)} (device {device}): exit {done.returncode}: {done.stderr.strip() or done.stdout.strip()}")
        return json.loads(done.stdout) if json_out else done.stdout

    def client(self, bundle):
        client = AppStoreServerAPIClient(self.key[0], self.key[1], self.key[2], bundle, Environment.SANDBOX)
        client._base_url = self.base
        return client

    def wait_delivered(self, expected_at_least, receiver):
        """Waits (a generous ceiling) until every notification the store wrote reached a final state."""
        deadline = time.time() + 300
        while time.time() < deadline:
            listed = self.cli(["notifications", "list"], developer=True)
            if len(listed) >= expected_at_least and all(n.get("state") != "pending" for n in listed):
                return listed
            self.cli(["notifications", "deliver"], json_out=False, developer=True, allow_failure=True)
            time.sleep(0.5)
        raise StoryFailed("notifications were still pending after 300 s")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def subscriptions_story(store, rng, log):
    """RW Selfies: every kind of subscription event, on two accounts and a family."""
    dev = lambda *a, **k: store.cli(list(a), developer=True, **k)
    cli = lambda *a, **k: store.cli(list(a), **k)
    advance = lambda text: dev("clock", "advance", text, json_out=False)
    dev("clock", "freeze", "2026-01-05T12:00:00Z", json_out=False)
    dev("app", "set", "--bundle-id", SELFIES, "--app-apple-id", "1234", "--environment", "Sandbox", json_out=False)
    for name in ("theo", "mia", "ana", "jo"):
        cli("account", "signup", name, json_out=False)
    # jo: a monthly plan, renewed; auto-renew off and on; a price increase agreed to.
    cli("buy", MONTHLY, json_out=False)
    advance(f"{32 + rng.randint(0, 3)}d")
    cli("cancel", MONTHLY, json_out=False)
    cli("renew-on", MONTHLY, json_out=False)
    dev("price", "set", MONTHLY, "6.99", "--consent-required", json_out=False)
    cli("price", "consent", MONTHLY, json_out=False)
    advance("1mo")
    # Billing fails with a grace period: DID_FAIL_TO_RENEW (GRACE_PERIOD), then recovery.
    dev("grace", "3d", json_out=False)
    dev("billing", "fail", json_out=False)
    advance("1mo")
    advance("5d")
    dev("billing", "ok", json_out=False)
    cli("force-renew", MONTHLY, json_out=False)
    # A downgrade at the next renewal, then an upgrade at once.
    cli("buy", ONE_A_WEEK, json_out=False)
    advance("1mo")
    cli("buy", MONTHLY, json_out=False)
    # Family Sharing of the plan with theo, then theo leaves.
    cli("family", "create", json_out=False)
    cli("family", "add", "theo", json_out=False)
    # theo accepts the invitation from a device of his own.
    store.cli(["account", "login", "theo"], device="theo", json_out=False)
    store.cli(["family", "accept"], device="theo", json_out=False)
    cli("family", "share", MONTHLY, "on", json_out=False)
    advance("2d")
    cli("family", "leave", "theo", json_out=False)
    # The developer extends one plan, then every active subscriber's (ana's lapsed plan is skipped).
    store.cli(["account", "login", "ana"], json_out=False)
    cli("buy", WEEKLY, json_out=False)
    cli("cancel", WEEKLY, json_out=False)
    advance("8d")
    store.cli(["account", "login", "jo"], json_out=False)
    plans = cli("subscriptions")["plans"]
    original = next(p for p in plans if p.get("group") == "selfies")["originalTransaction"]
    api = store.client(SELFIES)
    api.extend_subscription_renewal_date(original, ExtendRenewalDateRequest(
        extendByDays=3, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier="one-extension"))
    api.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
        extendByDays=2, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier="mass-extension-1",
        productId=WEEKLY, storefrontCountryCodes=[]))
    api.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
        extendByDays=2, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier="mass-extension-2",
        productId=MONTHLY, storefrontCountryCodes=[]))
    advance("1h")
    # A refund of the current period, its reversal; then jo cancels, lapses and comes back.
    entries = cli("receipt")["entries"]
    paid = [e for e in entries if e.get("event") in ("purchase", "renewal") and e.get("kind") == "autoRenewableSubscription"]
    if paid:
        refunded = paid[-1]["id"]
        dev("refund", refunded, json_out=False)
        dev("refund-request", "reverse", refunded, json_out=False)
    cli("cancel", MONTHLY, json_out=False)
    advance("2mo")
    cli("buy", MONTHLY, json_out=False)
    advance(f"{rng.randint(1, 20)}d")
    # Billing retry that gives up: EXPIRED (BILLING_RETRY).
    dev("grace", "off", json_out=False)
    dev("billing", "fail", json_out=False)
    advance("1mo")
    advance("70d")
    dev("billing", "ok", json_out=False)
    log.append("subscriptions story told")


def one_time_story(store, rng, log):
    """The comics: one-time purchases, Family Sharing of a comic, refund requests and reversals,
    and consent withdrawn for a member."""
    dev = lambda *a, **k: store.cli(list(a), developer=True, **k)
    cli = lambda *a, **k: store.cli(list(a), **k)
    dev("clock", "freeze", "2026-03-01T09:00:00Z", json_out=False)
    dev("app", "set", "--bundle-id", "com.storefront.comics", "--app-apple-id", "4321", "--environment", "Sandbox", json_out=False)
    cli("account", "signup", "theo", json_out=False)
    cli("account", "signup", "mia", json_out=False)
    cli("family", "create", json_out=False)
    cli("family", "add", "theo", json_out=False)
    store.cli(["account", "login", "theo"], device="theo", json_out=False)
    store.cli(["family", "accept"], device="theo", json_out=False)
    cli("buy", "Night Shift", json_out=False)
    cli("buy", "Cat Judge", json_out=False)
    packs = [cli("buy", "com.storefront.randomviews")["id"] for _ in range(1 + rng.randint(0, 2))]
    dev("clock", "advance", "1d", json_out=False)
    cli("family", "share", "Night Shift", "off", json_out=False)
    cli("family", "share", "Night Shift", "on", json_out=False)
    cli("refund-request", "ask", packs[0], json_out=False)
    dev("refund-request", "approve", packs[0], json_out=False)
    dev("refund-request", "reverse", packs[0], json_out=False)
    if len(packs) > 1:
        cli("refund-request", "ask", packs[1], json_out=False)
        dev("refund-request", "approve", packs[1], json_out=False)
    cli("family", "consent", "theo", "withdraw", json_out=False)
    if rng.random() < 0.5:
        cli("family", "consent", "theo", "give", json_out=False)
    cli("family", "leave", "theo", json_out=False)
    log.append("one-time story told")


# MARK: A commitment year

YEARLY = "com.storefront.yearly"


def yearly_catalog(folder):
    """Two one-year plans, each sold up front or monthly with a 12-month commitment."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "yearly.json")
    plan = lambda id, title, price, rank, monthly: {
        "id": id, "kind": "autoRenewableSubscription", "title": title, "price": price, "period": "P1Y",
        "group": "yearly", "rank": rank, "unlocks": [id], "monthlyCommitmentPrice": monthly}
    with open(path, "w") as file:
        json.dump({"name": "Yearly", "bundleId": YEARLY, "currency": "EUR", "locale": "en_IE", "products": [
            plan("y.all", "All Access (Yearly)", "49.99", 1, "4.99"),
            plan("y.lite", "Lite (Yearly)", "19.99", 2, "1.99")]}, file)
    return path


def commitment_story(store, rng, log):
    """Apple's lifecycle of monthly plans with a 12-month commitment, one account per row, all
    bought monthly on 31 January 2026."""
    dev = lambda *a, **k: store.cli(list(a), developer=True, **k)
    on = lambda name, *a, **k: store.cli(list(a), device=name, **k)
    advance = lambda text: dev("clock", "advance", text, json_out=False)
    people = ("cy", "ed", "fa", "gi", "hu", "jo")
    def settle():
        for name in people:
            on(name, "subscriptions")
    def latest_of(name):
        """The last transaction of name's plan, as Get All Subscription Statuses answers now
        (an empty dict when it refuses)."""
        plan = on(name, "subscriptions")["plans"][0]
        answer = requests.get(
            f"{store.base}/inApps/v1/subscriptions/{plan['originalTransaction']}",
            headers=dict(store.client(YEARLY)._get_headers()), timeout=60)
        return answer.json()["data"][0]["lastTransactions"][0] if answer.status_code == 200 else {}
    dev("clock", "freeze", "2026-01-31T10:00:00Z", json_out=False)
    dev("app", "set", "--bundle-id", YEARLY, "--app-apple-id", "5678", "--environment", "Sandbox", json_out=False)
    for name in people:
        on(name, "account", "signup", name, json_out=False)
        on(name, "buy", "y.lite" if name == "fa" else "y.all", "--billing", "monthly", json_out=False)
    advance(f"{29 + rng.randint(0, 2)}d")
    settle()
    # Month 2. cy turns auto-renew off and on; jo cancels for good (the months still come).
    on("cy", "cancel", "y.all", json_out=False)
    on("cy", "renew-on", "y.all", json_out=False)
    on("jo", "cancel", "y.all", json_out=False)
    # fa upgrades at once (the commitment ends); gi downgrades (it waits for the commitment's end).
    on("fa", "buy", "y.all", json_out=False)
    on("gi", "buy", "y.lite", json_out=False)
    # A refund of a past month (ed's first) revokes that month only.
    first = [e for e in on("ed", "receipt")["entries"] if e.get("event") == "purchase"][0]["id"]
    store.cli(["refund", first], developer=True, device="ed", json_out=False)
    # What Get All Subscription Statuses says of ed at the refund's store time: the REFUND
    # notification must say the same status.
    store.past_refund = (first, latest_of("ed").get("status"))
    advance("1mo")
    settle()
    # Month 3. The monthly price rises, with consent: cy agrees, ed declines.
    dev("price", "set", "y.all", "5.49", "--billing", "monthly", "--consent-required", json_out=False)
    on("cy", "price", "consent", "y.all", json_out=False)
    on("ed", "price", "decline", "y.all", json_out=False)
    # The renewal info as Get All Subscription Statuses signs it now, in the commitment (a
    # notification is signed when it is sent, which may be after the commitment ended).
    store.increases = {}
    for name in ("cy", "ed"):
        last = latest_of(name)
        store.increases[name] = (payload_of(last["signedRenewalInfo"]) if last else {}, payload_of(last["signedTransactionInfo"]) if last else {})
    # A refund of hu's current month ends the plan and its commitment.
    current = [e for e in on("hu", "receipt")["entries"] if e.get("event") in ("purchase", "renewal")][-1]["id"]
    store.cli(["refund", current], developer=True, device="hu", json_out=False)
    advance(f"{55 + rng.randint(0, 5)}d")
    settle()
    # A month fails to bill: no grace period, even with grace on; recovered ten days later, the
    # commitment's end moves ten days on.
    dev("grace", "16d", json_out=False)
    dev("billing", "fail", json_out=False)
    advance("1mo")
    settle()
    advance("10d")
    dev("billing", "ok", json_out=False)
    settle()
    dev("grace", "off", json_out=False)
    # The commitments end: cy's renews into another at the new price, ed's ends (PRICE_INCREASE),
    # jo's ends (VOLUNTARY), gi's turns into Lite billed up front.
    advance("9mo")
    settle()
    # Billing retry that gives up after 90 days for a month of cy's new commitment.
    dev("billing", "fail", json_out=False)
    advance("1mo")
    settle()
    advance("95d")
    settle()
    dev("billing", "ok", json_out=False)
    log.append("commitment story told")


def money(milliunits):
    return int(milliunits or 0)


def commitment_checks(store, bodies, failures):
    """Property 9: the commitment fields across each account's history, and the lifecycle's rows."""
    api = store.client(YEARLY)
    where = "commitment"
    originals, notes, months_checked, refund_statuses = {}, [], 0, {}
    for body in bodies:
        raw = payload_of(json.loads(body)["signedPayload"])
        data = raw.get("data", {})
        if "signedTransactionInfo" not in data:
            continue
        transaction = payload_of(data["signedTransactionInfo"])
        renewal = payload_of(data["signedRenewalInfo"]) if "signedRenewalInfo" in data else {}
        originals[transaction["originalTransactionId"]] = True
        if raw.get("notificationType") == "REFUND":
            refund_statuses[transaction["transactionId"]] = data.get("status")
        notes.append((raw.get("notificationType"), raw.get("subtype"), transaction, renewal))
    for original in sorted(originals):
        everything = []
        try:
            revision = None
            for _ in range(100):
                page = api.get_transaction_history(original, revision, TransactionHistoryRequest(sort=Order.ASCENDING), GetTransactionHistoryVersion.V2)
                everything += [payload_of(t) for t in page.signedTransactions or []]
                if not page.hasMore:
                    break
                revision = page.revision
        except APIException as error:
            failures.append(f"{where}: history of {original}: {error.http_status_code} {error.raw_api_error}")
            continue
        monthly = [t for t in everything if t.get("billingPlanType") == "MONTHLY" and "commitmentInfo" in t and t["originalTransactionId"] == original]
        months_checked += len(monthly)
        run = []
        for t in sorted(monthly, key=lambda t: t["purchaseDate"]):
            info = t["commitmentInfo"]
            number = info.get("billingPeriodNumber")
            if money(info.get("commitmentPrice")) != 12 * money(t.get("price")):
                failures.append(f"{where}: {t['transactionId']} has commitmentPrice {info.get('commitmentPrice')} for a month of {t.get('price')}")
            if number == 1 or not run:
                run = [t]
                if number != 1:
                    failures.append(f"{where}: {original}'s first month of a commitment is number {number}")
                continue
            last = run[-1]
            if number != last["commitmentInfo"]["billingPeriodNumber"] + 1:
                failures.append(f"{where}: {original} goes from month {last['commitmentInfo']['billingPeriodNumber']} to {number}")
            if t.get("price") != last.get("price"):
                failures.append(f"{where}: {original}'s month {number} costs {t.get('price')}, month 1 of its commitment {run[0].get('price')}")
            if info.get("commitmentExpiresDate", 0) < last["commitmentInfo"].get("commitmentExpiresDate", 0):
                failures.append(f"{where}: {original}'s commitmentExpiresDate moves earlier at month {number}")
            if number > 12:
                failures.append(f"{where}: {original} bills a month {number}")
            run.append(t)
        for t in everything:
            if t.get("type") == "Auto-Renewable Subscription" and "expiresDate" not in t:
                failures.append(f"{where}: {t['transactionId']} has no expiresDate")
            # Every auto-renewable period is on a billing plan: up front, or a commitment's month.
            if t.get("type") == "Auto-Renewable Subscription" and t.get("billingPlanType") not in ("BILLED_UPFRONT", "MONTHLY"):
                failures.append(f"{where}: {t['transactionId']} ({t.get('productId')}) has billingPlanType {t.get('billingPlanType')}")
    # The rows of Apple's lifecycle, as the notifications say them.
    for kind, subtype, transaction, renewal in notes:
        title = kind + (f" ({subtype})" if subtype else "")
        in_commitment = transaction.get("billingPlanType") == "MONTHLY"
        if renewal and renewal.get("renewalBillingPlanType") not in ("BILLED_UPFRONT", "MONTHLY"):
            failures.append(f"{where}: {title}'s renewal info for {renewal.get('productId')} has renewalBillingPlanType {renewal.get('renewalBillingPlanType')}")
        # A plan that ended in a commitment names the plan she paid: monthly, at a month's price.
        if kind == "EXPIRED" and in_commitment and (renewal.get("renewalBillingPlanType") != "MONTHLY" or renewal.get("renewalPrice") != transaction.get("price")):
            failures.append(f"{where}: {title} after a month of a commitment renews {renewal.get('renewalBillingPlanType')} at {renewal.get('renewalPrice')} (the month was {transaction.get('price')})")
        if kind == "DID_FAIL_TO_RENEW" and in_commitment and (subtype or "gracePeriodExpiresDate" in renewal):
            failures.append(f"{where}: {title} for a month of a commitment has a grace period")
        if kind == "DID_CHANGE_RENEWAL_PREF" and subtype == "UPGRADE" and transaction.get("billingPlanType") != "BILLED_UPFRONT":
            failures.append(f"{where}: an upgrade out of a commitment is billed {transaction.get('billingPlanType')}, not up front")
    refunded, listed = getattr(store, "past_refund", (None, None))
    if listed != 1 or refund_statuses.get(refunded) != listed:
        failures.append(f"{where}: a past month's refund: the REFUND notification says status {refund_statuses.get(refunded)}, Get All Subscription Statuses {listed} (want 1 from both)")
    if months_checked < 24:
        failures.append(f"{where}: only {months_checked} months of commitments were there to check")
    # A price increase of the monthly plan, agreed to (cy) and declined (ed), as the statuses said
    # in the commitment: the month's renewal price, the next commitment's at the new price.
    for name, status in (("cy", 1), ("ed", 0)):
        renewal, transaction = getattr(store, "increases", {}).get(name, ({}, {}))
        info = renewal.get("commitmentInfo", {})
        if (renewal.get("priceIncreaseStatus") != status or money(info.get("commitmentRenewalPrice")) != 5490
                or money(renewal.get("renewalPrice")) != money(transaction.get("price")) or transaction.get("billingPlanType") != "MONTHLY"):
            failures.append(f"{where}: {name}'s renewal info after the monthly increase: priceIncreaseStatus {renewal.get('priceIncreaseStatus')} (want {status}), renewalPrice {renewal.get('renewalPrice')} (the month is {transaction.get('price')}), commitmentRenewalPrice {info.get('commitmentRenewalPrice')} (want 5490)")
    renewed_at_new_price = any(kind == "DID_RENEW" and t.get("commitmentInfo", {}).get("billingPeriodNumber") == 1 and money(t.get("price")) == 5490 for kind, _, t, _ in notes)
    if not renewed_at_new_price:
        failures.append(f"{where}: no commitment renewed into month 1 of another at the new price 5.49")
    moved = [t for kind, subtype, t, _ in notes if kind == "DID_RENEW" and subtype == "BILLING_RECOVERY" and "commitmentInfo" in t]
    if not moved:
        failures.append(f"{where}: no month of a commitment recovered from billing retry")
    for title in ("EXPIRED (PRICE_INCREASE)", "EXPIRED (VOLUNTARY)", "EXPIRED (BILLING_RETRY)", "REFUND", "DID_CHANGE_RENEWAL_PREF (UPGRADE)", "DID_CHANGE_RENEWAL_PREF (DOWNGRADE)", "PRICE_INCREASE (PENDING)", "PRICE_INCREASE (ACCEPTED)", "DID_FAIL_TO_RENEW", "DID_RENEW (BILLING_RECOVERY)"):
        if not any(kind + (f" ({subtype})" if subtype else "") == title for kind, subtype, _, _ in notes):
            failures.append(f"{where}: the story told no {title}")


# MARK: The properties

def judge(store, bundle, apple_id, bodies, failures, counts):
    verifier = SignedDataVerifier([store.root], False, Environment.SANDBOX, bundle, apple_id)
    api = store.client(bundle)
    headers = lambda: dict(api._get_headers())
    original_ids = set()
    for index, body in enumerate(bodies):
        where = f"{bundle} notification {index}"
        signed = json.loads(body)["signedPayload"]
        raw = payload_of(signed)
        title = raw.get("notificationType", "?") + (f" ({raw['subtype']})" if raw.get("subtype") else "")
        counts[title] = counts.get(title, 0) + 1
        where += f" {title}"
        try:
            verifier.verify_and_decode_notification(signed)
        except VerificationException as error:
            failures.append(f"{where}: Apple's verifier refuses it: {error.status.name}")
        check_types(raw, ResponseBodyV2DecodedPayload, where, failures)
        if "data" in raw:
            check_types(raw["data"], Data, where + ".data", failures)
        if "summary" in raw:
            check_types(raw["summary"], Summary, where + ".summary", failures)
        if "appData" in raw:
            check_types(raw["appData"], AppData, where + ".appData", failures)
            app_transaction_checks(verifier, api, raw["appData"], where, failures)
        data = raw.get("data", {})
        transaction = renewal = None
        if "signedTransactionInfo" in data:
            transaction = payload_of(data["signedTransactionInfo"])
            check_types(transaction, JWSTransactionDecodedPayload, where + " transaction", failures)
            try:
                answered = api.get_transaction_info(transaction["transactionId"])
                served = payload_of(answered.signedTransactionInfo)
                # What may change after the notification: a later extension moves expiresDate on, a
                # later upgrade sets isUpgraded, a later refund or family revoke revokes it.
                later = {"signedDate", "expiresDate", "isUpgraded", "revocationDate", "revocationReason"}
                mismatch = {k for k in set(served) | set(transaction) if k not in later and served.get(k) != transaction.get(k)}
                if served.get("expiresDate", 0) < transaction.get("expiresDate", 0):
                    mismatch.add("expiresDate (earlier than the notification's)")
                if mismatch:
                    failures.append(f"{where}: Get Transaction Info answers {transaction['transactionId']} differently in {sorted(mismatch)}")
            except APIException as error:
                failures.append(f"{where}: its transaction {transaction.get('transactionId')} is unknown to Get Transaction Info ({error.http_status_code}, {error.raw_api_error})")
        if "signedRenewalInfo" in data:
            renewal = payload_of(data["signedRenewalInfo"])
            check_types(renewal, JWSRenewalInfoDecodedPayload, where + " renewal info", failures)
        if transaction and renewal and transaction.get("originalTransactionId") != renewal.get("originalTransactionId"):
            failures.append(f"{where}: the transaction's originalTransactionId {transaction.get('originalTransactionId')} is not the renewal info's {renewal.get('originalTransactionId')}")
        if transaction and raw.get("notificationType") == "REVOKE":
            if transaction.get("inAppOwnershipType") != "FAMILY_SHARED" or "revocationDate" not in transaction:
                failures.append(f"{where}: REVOKE carries {transaction.get('inAppOwnershipType')} without the member's revoked FAMILY_SHARED transaction")
        if transaction and transaction.get("type") == "Auto-Renewable Subscription" and "expiresDate" not in transaction:
            failures.append(f"{where}: its auto-renewable transaction {transaction['transactionId']} has no expiresDate")
        if transaction:
            original_ids.add(transaction["transactionId"])
    # History: every filter returns exactly what matches it, for each transaction seen.
    checked_accounts = set()
    for transaction_id in sorted(original_ids):
        everything = history(api, transaction_id, None, headers, failures)
        if everything is None:
            continue
        key = tuple(sorted(t["transactionId"] for t in everything))
        if key in checked_accounts:
            continue
        checked_accounts.add(key)
        filters = [
            ("productTypes=AUTO_RENEWABLE", dict(productTypes=[ProductType.AUTO_RENEWABLE]), lambda t: t["type"] == "Auto-Renewable Subscription"),
            ("productTypes=NON_CONSUMABLE", dict(productTypes=[ProductType.NON_CONSUMABLE]), lambda t: t["type"] == "Non-Consumable"),
            ("productTypes=CONSUMABLE", dict(productTypes=[ProductType.CONSUMABLE]), lambda t: t["type"] == "Consumable"),
            ("inAppOwnershipType=FAMILY_SHARED", dict(inAppOwnershipType=InAppOwnershipType.FAMILY_SHARED), lambda t: t["inAppOwnershipType"] == "FAMILY_SHARED"),
            ("inAppOwnershipType=PURCHASED", dict(inAppOwnershipType=InAppOwnershipType.PURCHASED), lambda t: t["inAppOwnershipType"] == "PURCHASED"),
            ("revoked=true", dict(revoked=True), lambda t: "revocationDate" in t),
            ("revoked=false", dict(revoked=False), lambda t: "revocationDate" not in t),
        ]
        products = sorted({t["productId"] for t in everything})
        if products:
            filters.append((f"productIds={products[0]}", dict(productIds=[products[0]]), lambda t, p=products[0]: t["productId"] == p))
        groups = sorted({t["subscriptionGroupIdentifier"] for t in everything if "subscriptionGroupIdentifier" in t})
        if groups:
            filters.append((f"subscriptionGroupIdentifiers={groups[0]}", dict(subscriptionGroupIdentifiers=[groups[0]]), lambda t, g=groups[0]: t.get("subscriptionGroupIdentifier") == g))
        dates = sorted(t["purchaseDate"] for t in everything)
        if len(dates) > 2:
            start, end = dates[len(dates) // 3], dates[2 * len(dates) // 3]
            filters.append((f"startDate..endDate", dict(startDate=start, endDate=end), lambda t, s=start, e=end: s <= t["purchaseDate"] < e))
        for name, arguments, matches in filters:
            got = history(api, transaction_id, TransactionHistoryRequest(**arguments), headers, failures)
            if got is None:
                continue
            want = sorted(t["transactionId"] for t in everything if matches(t))
            have = sorted(t["transactionId"] for t in got)
            if want != have:
                failures.append(f"{bundle} history of {transaction_id} with {name}: {len(have)} transactions, {len(want)} match (extra {sorted(set(have) - set(want))[:3]}, missing {sorted(set(want) - set(have))[:3]})")
        refunds = refund_history(api, transaction_id, headers, failures)
        if refunds is not None:
            want = sorted(t["transactionId"] for t in everything if "revocationDate" in t and t["inAppOwnershipType"] == "PURCHASED")
            have = sorted(t["transactionId"] for t in refunds)
            if want != have:
                failures.append(f"{bundle} refund history of {transaction_id}: {have} but the revoked transactions are {want}")
        # One group of one account keeps one original id; every subscription period has its line item id.
        by_group = {}
        for t in everything:
            if "subscriptionGroupIdentifier" in t and t["inAppOwnershipType"] == "PURCHASED":
                by_group.setdefault(t["subscriptionGroupIdentifier"], set()).add(t["originalTransactionId"])
                if "webOrderLineItemId" not in t:
                    failures.append(f"{bundle}: subscription transaction {t['transactionId']} has no webOrderLineItemId")
        for group, ids in by_group.items():
            if len(ids) > 1:
                failures.append(f"{bundle}: group {group} of one account has {len(ids)} original transaction ids {sorted(ids)}")
        # All subscription statuses: types, and the originals agree.
        response = requests.get(f"{store.base}/inApps/v1/subscriptions/{transaction_id}", headers=headers(), timeout=60)
        if response.status_code == 200:
            body = response.json()
            check_types(body, StatusResponse, f"{bundle} statuses of {transaction_id}", failures)
            for group in body.get("data", []):
                for last in group.get("lastTransactions", []):
                    t, r = payload_of(last["signedTransactionInfo"]), payload_of(last["signedRenewalInfo"])
                    if t["originalTransactionId"] != r["originalTransactionId"] or last.get("originalTransactionId") != r["originalTransactionId"]:
                        failures.append(f"{bundle} statuses of {transaction_id}: originals disagree ({last.get('originalTransactionId')}, {t['originalTransactionId']}, {r['originalTransactionId']})")


def app_transaction_checks(verifier, api, app_data, where, failures):
    """An appData's app transaction verifies, and names a customer the Server API knows."""
    signed = app_data.get("signedAppTransactionInfo")
    if not signed:
        failures.append(f"{where}: appData has no signedAppTransactionInfo")
        return
    try:
        verifier.verify_and_decode_app_transaction(signed)
    except VerificationException as error:
        failures.append(f"{where}: Apple's verifier refuses its app transaction: {error.status.name}")
    app = payload_of(signed)
    check_types(app, AppTransaction, where + " app transaction", failures)
    try:
        served = payload_of(api.get_app_transaction_info(app["appTransactionId"]).signedAppTransactionInfo)
        if served.get("appTransactionId") != app["appTransactionId"] or served.get("originalPurchaseDate") != app.get("originalPurchaseDate"):
            failures.append(f"{where}: Get App Transaction Info answers {app['appTransactionId']} with another customer or first purchase")
    except APIException as error:
        failures.append(f"{where}: its appTransactionId {app.get('appTransactionId')} is unknown to Get App Transaction Info ({error.http_status_code}, {error.raw_api_error})")


def every_page(fetch, raw_path, model, what, api, headers, failures):
    """Every page `fetch(revision)` gives, decoded; the first raw page type-checked against `model`."""
    found, revision = [], None
    for _ in range(100):
        try:
            page = fetch(revision)
        except APIException as error:
            failures.append(f"{what}: {error.http_status_code} {error.raw_api_error}")
            return None
        found += [payload_of(t) for t in page.signedTransactions or []]
        if not page.hasMore:
            break
        revision = page.revision
    raw = requests.get(f"{api._base_url}{raw_path}", headers=headers(), timeout=60)
    if raw.status_code == 200:
        check_types(raw.json(), model, what, failures)
    return found


def history(api, transaction_id, request, headers, failures):
    """Get Transaction History v2, every page."""
    request = request or TransactionHistoryRequest()
    return every_page(lambda revision: api.get_transaction_history(transaction_id, revision, request, GetTransactionHistoryVersion.V2),
                      f"/inApps/v2/history/{transaction_id}", HistoryResponse, f"history of {transaction_id}", api, headers, failures)


def refund_history(api, transaction_id, headers, failures):
    """Get Refund History, every page."""
    return every_page(lambda revision: api.get_refund_history(transaction_id, revision),
                      f"/inApps/v2/refund/lookup/{transaction_id}", RefundHistoryResponse, f"refund history of {transaction_id}", api, headers, failures)


def mass_extension_checks(store, failures, counts):
    api = store.client(SELFIES)
    headers = dict(api._get_headers())
    failed = 0
    for request, product in (("mass-extension-1", WEEKLY), ("mass-extension-2", MONTHLY)):
        response = requests.get(f"{store.base}/inApps/v1/subscriptions/extend/mass/{product}/{request}", headers=headers, timeout=60)
        if response.status_code != 200:
            failures.append(f"mass extension {request}: {response.status_code} {response.text[:200]}")
            continue
        check_types(response.json(), MassExtendRenewalDateStatusResponse, f"mass extension {request}", failures)
        failed += int(response.json().get("failedCount") or 0)
    told = counts.get("RENEWAL_EXTENSION (FAILURE)", 0)
    if failed == 0 or told != failed:
        failures.append(f"mass extensions failed for {failed} subscribers (the story makes at least one) and {told} RENEWAL_EXTENSION (FAILURE) notifications were sent")
    unknown = requests.get(f"{store.base}/inApps/v1/subscriptions/extend/mass/{MONTHLY}/no-such-request", headers=headers, timeout=60)
    code = unknown.json().get("errorCode") if unknown.headers.get("content-type") == "application/json" else None
    if unknown.status_code != 404 or code != 4040009:
        failures.append(f"an unknown mass extension answers {unknown.status_code} {code}, Apple answers 404 4040009")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("work")
    parser.add_argument("--database", action="append", default=[], help="one per catalog, in order (PostgreSQL)")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    failures, counts, log = [], {}, []
    stores = []
    try:
        for name, catalog, story, bundle, apple_id in (
            ("selfies", os.path.join(root, "assets/selfies.json"), subscriptions_story, SELFIES, 1234),
            ("comics", os.path.join(root, "assets/catalog.json"), one_time_story, "com.storefront.comics", 4321),
            ("yearly", yearly_catalog, commitment_story, YEARLY, 5678),
        ):
            receiver = Receiver()
            database = args.database[len(stores)] if len(args.database) > len(stores) else None
            store = Store(args.binary, os.path.join(args.work, name), catalog, database, receiver)
            stores.append(store)
            story(store, rng, log)
            written = store.wait_delivered(1, receiver)
            deadline = time.time() + 120
            delivered = sum(1 for n in written if n.get("state") == "delivered")
            while len(receiver.bodies) < delivered and time.time() < deadline:
                time.sleep(0.2)
            judge(store, bundle, apple_id, list(receiver.bodies), failures, counts)
            if name == "selfies":
                mass_extension_checks(store, failures, counts)
            if name == "yearly":
                commitment_checks(store, list(receiver.bodies), failures)
    except StoryFailed as error:
        json.dump({"seed": seed, "story": log, "error": str(error), "notifications": counts, "failures": failures}, sys.stdout, indent=1)
        return 2
    finally:
        for store in stores:
            store.stop()
    json.dump({"seed": seed, "story": log, "notifications": counts, "failures": failures}, sys.stdout, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
