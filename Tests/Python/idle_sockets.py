#!/usr/bin/env python3
"""Holds many idle connections to a server, as an attacker would (W11).

  idle_sockets.py HOST PORT N [--partial | --body]

Opens N TCP connections (with --partial, each sends half a request head and never the rest; with
--body, a whole request head and a few bytes of a body it never finishes, so that each holds a
request in progress),
prints "opened N" (the number it could open), then answers each line on standard input:
"open" prints how many of its connections the server has not closed. Stops when standard input
closes.
"""
import resource, select, socket, sys


def main():
    host, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    partial = "--partial" in sys.argv
    body = "--body" in sys.argv
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sockets = []
    for _ in range(count):
        try:
            connection = socket.create_connection((host, port), timeout=30)
        except OSError as error:
            print(f"stopped at {len(sockets)}: {error}", file=sys.stderr, flush=True)
            break
        if partial:
            connection.sendall(b"GET /inApps/v1/transactions/1 HTTP/1.1\r\nHost: x\r\n")
        if body:
            connection.sendall(
                b"POST /storefront/v1/call HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n{\"method\"")
        connection.setblocking(False)
        sockets.append(connection)
    print(f"opened {len(sockets)}", flush=True)
    alive = set(range(len(sockets)))
    for line in sys.stdin:
        if line.strip() != "open":
            continue
        poller = select.poll()
        for index in alive:
            poller.register(sockets[index], select.POLLIN | select.POLLHUP | select.POLLERR)
        closed = set()
        by_fd = {sockets[index].fileno(): index for index in alive}
        for fd, _ in poller.poll(0):
            index = by_fd[fd]
            try:
                data = sockets[index].recv(65536)
                if not data:
                    closed.add(index)
            except BlockingIOError:
                pass
            except OSError:
                closed.add(index)
        for index in closed:
            sockets[index].close()
        alive -= closed
        print(len(alive), flush=True)


if __name__ == "__main__":
    main()
