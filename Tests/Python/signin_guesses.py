#!/usr/bin/env python3
"""Guesses one account's password from many addresses at once, as a small botnet would (W17).

  signin_guesses.py BASE_URL NAME COUNT ADDRESSES STOP_FILE

ADDRESSES threads, each from its own loopback address (127.0.0.2, 127.0.0.3, ...), send
wrong-password sign-ins for NAME one after another, until COUNT have been sent in all and STOP_FILE
exists ("-": stop after COUNT). Prints "under way" once every thread has had an answer, then, at
the end, one line of JSON: how many were sent, how many answered each status, and each distinct
answer body with its count.
"""
import json, os, sys, threading, urllib.parse

import loopback_source


def main():
    base, name, count, addresses, stop = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    url = urllib.parse.urlparse(base)
    # Each thread's source is an IPv4 loopback address, so the server is reached on IPv4.
    host = "127.0.0.1" if url.hostname in ("localhost", "::1") else url.hostname
    statuses, bodies, lock = {}, {}, threading.Lock()
    sent = [0]
    answered = set()
    body = json.dumps({"method": "signIn", "request": {"name": name, "password": "wrong guess", "device": "bot"}})

    def done():
        return sent[0] >= count and (stop == "-" or os.path.exists(stop))

    def guess(index):
        source = f"127.0.0.{2 + index}"
        while True:
            with lock:
                if done():
                    return
                sent[0] += 1
            try:
                connection = loopback_source.connection(host, url.port, source, 60)
                connection.request("POST", "/storefront/v1/call", body, {"Content-Type": "application/json"})
                response = connection.getresponse()
                status, text = str(response.status), response.read().decode()
                connection.close()
            except OSError as error:
                status, text = "error", str(error)
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                bodies[text] = bodies.get(text, 0) + 1
                answered.add(index)
                if len(answered) == addresses and index >= 0:
                    answered.add(-1)
                    print("under way", flush=True)

    threads = [threading.Thread(target=guess, args=(index,)) for index in range(addresses)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"sent": sum(statuses.values()), "statuses": statuses, "bodies": bodies}), flush=True)


main()
