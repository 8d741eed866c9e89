#!/usr/bin/env python3
"""SelfieService, as the RW Selfies tutorial's backend plays it: the app uploads its receipt; the
service validates it at verifyReceipt with the app's shared secret (production first, then the
sandbox, as Apple asks), and answers a session id and the current subscription. The content is
then loaded with that session.

  selfie_service.py --verify-base http://localhost:PORT --secret SECRET [--port 0]

prints "listening on http://127.0.0.1:PORT" and serves POST /upload {"receipt-data": base64}:

  200 {"sessionId": "...", "currentSubscription": {"productId", "originalTransactionId",
       "expiresDate" (ms), "isActive", "isTrialPeriod", "isCancelled"} or null}
  401 {"error": "..."} when verifyReceipt refuses the receipt (its status and inapppy's words)

The receipt is validated by inapppy (PyPI), a verifyReceipt client nobody here wrote, with Apple's
two hosts replaced by `storefront serve`'s two paths.
"""
import argparse, http.server, json, sys, threading, uuid

from inapppy import AppStoreValidator, InAppPyValidationError


class LocalValidator(AppStoreValidator):
    """inapppy's validator, sending to serve's /production/ and /sandbox/ paths instead of Apple's hosts."""

    def __init__(self, base, **options):
        self.base = base.rstrip("/")
        super().__init__(**options)

    def _change_url_by_sandbox(self):
        self.url = f"{self.base}/sandbox/verifyReceipt" if self.sandbox else f"{self.base}/production/verifyReceipt"


def validate(base, receipt, secret, exclude_old=False):
    """verifyReceipt's answer for `receipt`, production first and then the sandbox (inapppy's retry)."""
    return LocalValidator(base, sandbox=False, auto_retry_wrong_env_request=True, http_timeout=60).validate(
        receipt, shared_secret=secret, exclude_old_transactions=exclude_old)


def current_subscription(answer):
    """The newest auto-renewable transaction, and whether it gives access now (by the answer's request date)."""
    plans = [t for t in answer.get("latest_receipt_info", []) if "expires_date_ms" in t]
    if not plans:
        return None
    newest = max(plans, key=lambda t: int(t["expires_date_ms"]))
    now = int(answer["receipt"]["request_date_ms"])
    cancelled = "cancellation_date_ms" in newest
    return {
        "productId": newest["product_id"], "originalTransactionId": newest["original_transaction_id"],
        "expiresDate": int(newest["expires_date_ms"]), "isTrialPeriod": newest["is_trial_period"] == "true",
        "isCancelled": cancelled, "isActive": not cancelled and int(newest["expires_date_ms"]) > now,
    }


class SelfieService:
    def __init__(self, verify_base, secret, port=0):
        self.sessions = {}
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    receipt = json.loads(body)["receipt-data"]
                    answer = validate(verify_base, receipt, secret)
                except InAppPyValidationError as error:
                    status = (error.raw_response or {}).get("status")
                    return self.answer(401, {"error": f"verifyReceipt refused the receipt: {error.message} ({status})", "status": status})
                except (ValueError, KeyError, TypeError):
                    return self.answer(400, {"error": "the body is not {\"receipt-data\": base64}"})
                session = str(uuid.uuid4())
                subscription = current_subscription(answer)
                service.sessions[session] = subscription
                self.answer(200, {"sessionId": session, "currentSubscription": subscription})

            def answer(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/upload"

    def start(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self


def main():
    parser = argparse.ArgumentParser(description="SelfieService: validates uploaded receipts at verifyReceipt")
    parser.add_argument("--verify-base", required=True, help="storefront serve's address, such as http://localhost:8080")
    parser.add_argument("--secret", required=True, help="the app's shared secret (storefront shared-secret)")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    service = SelfieService(args.verify_base, args.secret, args.port)
    print(f"listening on {service.url}", flush=True)
    try:
        service.server.serve_forever()
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
