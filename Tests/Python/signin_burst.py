#!/usr/bin/env python3
"""A sign-in burst from many addresses, as a password sprayer would (W11).

  signin_burst.py BASE_URL SECONDS COUNT

COUNT threads, each from its own loopback address (127.0.0.2, 127.0.0.3, ...), send wrong-password
sign-ins for a name of their own (burst1, burst2, ...) one after another for SECONDS, so that the
server's limits per address and per name let each go through at full cost. Prints one line of
JSON: how many were sent, and how many answered each status.
"""
import json, sys, threading, time, urllib.parse

import loopback_source


def main():
    base, seconds, count = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    url = urllib.parse.urlparse(base)
    deadline = time.monotonic() + seconds
    statuses, lock = {}, threading.Lock()

    def spray(index):
        source = f"127.0.0.{2 + index}"
        body = json.dumps({
            "method": "signIn",
            "request": {"name": f"burst{index}", "password": "wrong", "device": "bench"},
        })
        while time.monotonic() < deadline:
            try:
                connection = loopback_source.connection(url.hostname, url.port, source, 30)
                connection.request("POST", "/storefront/v1/call", body, {"Content-Type": "application/json"})
                status = connection.getresponse().status
                connection.close()
            except OSError:
                status = "error"
            with lock:
                statuses[str(status)] = statuses.get(str(status), 0) + 1

    threads = [threading.Thread(target=spray, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"sent": sum(statuses.values()), "statuses": statuses}), flush=True)


main()
