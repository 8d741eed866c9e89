"""HTTP connections from a loopback address of one's own, as many clients on many machines would.

Binding a client socket to (address, 0) makes the kernel reserve that port for it alone at bind()
time, and the reservation outlives the socket for as long as its TIME_WAIT lasts (60 s): a few
thousand short connections then starve every other client on the machine of ephemeral ports
(CI of 845d745: a test holding 20,000 idle connections stopped at 17,598 with EADDRNOTAVAIL while
a sign-in burst ran beside it). IP_BIND_ADDRESS_NO_PORT defers the port to connect(), which picks
one unique for the four-tuple only, as an unbound client's connect() does.
"""
import http.client, socket


def connection(host, port, source, timeout):
    """An HTTPConnection to host:port whose socket comes from the IPv4 address `source`."""

    def create(address, timeout=timeout, source_address=None):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_BIND_ADDRESS_NO_PORT, 1)
            sock.settimeout(timeout)
            sock.bind((source, 0))
            sock.connect(address)
            return sock
        except BaseException:
            sock.close()
            raise

    made = http.client.HTTPConnection(host, port, timeout=timeout)
    made._create_connection = create
    return made
