#!/usr/bin/env python3
"""Holds an HTTPS keep-alive connection and then stops answering, as a stopped or wedged client
would (W6, W11).

  silent_tls_client.py HOST PORT CA_FILE

Connects over TLS (trusting CA_FILE), sends one GET, reads its whole answer, prints one JSON line
with the status line, and then sleeps for a minute without reading: the server's close_notify is
never answered, and no FIN comes while the process lives.
"""
import json, socket, ssl, sys, time


def main():
    host, port, ca_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    context = ssl.create_default_context(cafile=ca_file)
    connection = context.wrap_socket(socket.create_connection((host, port), timeout=30), server_hostname=host)
    connection.sendall(f"GET /inApps/v1/notifications/test HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += connection.recv(4096)
    head, _, body = answer.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0
    )
    while len(body) < length:
        body += connection.recv(4096)
    print(json.dumps({"status": head.split(b"\r\n", 1)[0].decode()}), flush=True)
    time.sleep(60)


main()
