#!/usr/bin/env python3
"""Holds idle TCP connections to a server, for stopping it under load.

  hold_connections.py PORT COUNT

Opens COUNT connections to 127.0.0.1:PORT (raising its own file limit to the hard limit), prints
"open", and keeps them, silent, until standard input closes.
"""
import resource, socket, sys


def main():
    port, count = int(sys.argv[1]), int(sys.argv[2])
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
    print("open", flush=True)
    sys.stdin.read()
    for connection in held:
        connection.close()


if __name__ == "__main__":
    main()
