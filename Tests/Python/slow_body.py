#!/usr/bin/env python3
"""Sends a request whose body trickles in a byte at a time, as a slow-body attacker would (W11).

  slow_body.py HOST PORT LENGTH INTERVAL

Sends the head of POST /storefront/v1/call with Content-Length LENGTH, then one byte of the body
every INTERVAL seconds. Prints one JSON line: how many body bytes were sent before the server
answered or closed, the status line it answered with (or null), and whether it closed.
"""
import json, socket, sys


def main():
    host, port, length, interval = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    connection = socket.create_connection((host, port), timeout=30)
    head = f"POST /storefront/v1/call HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    connection.sendall(head.encode())
    connection.settimeout(interval)
    sent, answer, closed = 0, b"", False
    while sent < length:
        try:
            chunk = connection.recv(4096)
            if not chunk:
                closed = True
                break
            answer += chunk
        except socket.timeout:
            pass
        try:
            connection.sendall(b" ")
            sent += 1
        except OSError:
            closed = True
            break
    if not closed:
        connection.settimeout(5)
        try:
            while True:
                chunk = connection.recv(4096)
                if not chunk:
                    closed = True
                    break
                answer += chunk
        except (socket.timeout, OSError):
            pass
    status = answer.split(b"\r\n", 1)[0].decode() if answer else None
    print(json.dumps({"sent": sent, "status": status, "closed": closed}), flush=True)


main()
