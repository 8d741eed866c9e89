#!/usr/bin/env python3
"""Who holds a POSIX lock on one byte of a file, as another process sees it.

  lock_holder.py PATH OFFSET

Asks the kernel (fcntl F_GETLK, for a write lock on the byte at OFFSET) and prints the pid of a
process whose lock is in the way, or 0 when none is. Run as a process of its own: a descriptor
that the process under test opened and closed on PATH would drop every POSIX lock it holds there.
"""
import fcntl, os, struct, sys

# struct flock on Linux: short l_type, short l_whence, off_t l_start, off_t l_len, pid_t l_pid.
LAYOUT = "hhqqi4x"


def main():
    path, offset = sys.argv[1], int(sys.argv[2])
    descriptor = os.open(path, os.O_RDONLY)
    probe = struct.pack(LAYOUT, fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0)
    kind, _, _, _, pid = struct.unpack(LAYOUT, fcntl.fcntl(descriptor, fcntl.F_GETLK, probe))
    print(0 if kind == fcntl.F_UNLCK else pid)


if __name__ == "__main__":
    main()
