#!/usr/bin/env python3
"""A developer's Get Retention Message endpoint for Storefront's tests, on loopback.

  retention_endpoint.py LOG ANSWER

Prints the port it listens on (one line). For each POST it appends the request body as one line to
LOG, then reads ANSWER (a JSON file the test may rewrite between requests):
  {"body": RealtimeResponseBody as JSON, "sleep": seconds before answering, "status": HTTP status}
and answers with it (200 and {} when the file is missing). Stops when standard input closes.
"""
import http.server, json, sys, threading, time


def main():
    log, answer_file = sys.argv[1], sys.argv[2]
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                with open(log, "ab") as out:
                    out.write(body.replace(b"\n", b" ") + b"\n")
            try:
                with open(answer_file) as source:
                    answer = json.load(source)
            except (OSError, ValueError):
                answer = {}
            time.sleep(answer.get("sleep", 0))
            payload = json.dumps(answer.get("body", {})).encode()
            try:
                self.send_response(answer.get("status", 200))
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()


if __name__ == "__main__":
    main()
