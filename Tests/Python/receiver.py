#!/usr/bin/env python3
"""A developer's server for Storefront's tests: receives App Store Server Notifications V2 on loopback.

  receiver.py LOG [--fail N] [--hang] [--delay S] [--tls CERT KEY]

Prints the port it listens on (one line), then appends each request body as one line to LOG.
--fail N answers 500 to the first N requests; --hang never answers; --delay S answers S seconds
after the body came (it is logged at once); --garbage answers 200 with a
body that is not JSON after closing early; --tls serves HTTPS with a PEM certificate chain and key.
Stops when standard input closes.
"""
import argparse, http.server, sys, threading, time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--fail", type=int, default=0)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--delay", type=float, default=0)
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = parser.parse_args()
    state = {"seen": 0}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                state["seen"] += 1
                seen = state["seen"]
                with open(args.log, "ab") as log:
                    log.write(body.replace(b"\n", b" ") + b"\n")
            if args.hang:
                time.sleep(3600)
                return
            time.sleep(args.delay)
            status = 500 if seen <= args.fail else 200
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if args.tls:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls[0], args.tls[1])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()


if __name__ == "__main__":
    main()
