"""The emulated internet itself (Tests/testsupport/netns.py, docs/emulated-network.md), checked with plain UDP before
any call relies on it: a client reaches the public namespace and is seen there at its router's address; the public
side cannot reach a LAN; restricted and full-cone NATs keep one external port for two destinations and a symmetric
one does not; only the full-cone NAT lets a stranger's packet through to a mapped port;
random loss drops about its share; a bottleneck carries about its rate; nothing is left behind."""

from __future__ import annotations

import socket
import subprocess
import threading
import time

from testsupport.netns import PREFIX, PUBLIC_ADDRESS, emulated_internet, udp_socket_in


class Echo:
    """A UDP server in the public namespace that answers every datagram with the address it came from."""

    def __init__(self, ns: str, port: int = 0) -> None:
        self.sock = udp_socket_in(ns, (PUBLIC_ADDRESS, port))
        self.port = self.sock.getsockname()[1]
        self.received = 0
        self.bytes = 0
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while True:
            try:
                data, source = self.sock.recvfrom(2048)
            except OSError:
                return
            self.received += 1
            self.bytes += len(data)
            if data.startswith(b"?"):
                self.sock.sendto(f"{source[0]}:{source[1]}".encode(), source)

    def close(self) -> None:
        self.sock.close()


def ask(sock: socket.socket, port: int, timeout: float = 1.0) -> str | None:
    sock.settimeout(timeout)
    sock.sendto(b"?", (PUBLIC_ADDRESS, port))
    try:
        return sock.recv(100).decode()
    except socket.timeout:
        return None


def test_nat_kinds_reachability_loss_and_rate():
    with emulated_internet() as net:
        cone = net.add_site("restricted")
        full = net.add_site("full-cone")
        symmetric = net.add_site("symmetric")
        lossy = net.add_site("restricted", loss_percent=20)
        slow = net.add_site("restricted", rate_kbit=500)
        echoes = [Echo(net.public), Echo(net.public)]
        try:
            # Restricted and full cone: seen at the router's address, with the same port towards two destinations; a
            # stranger's datagram to that address and port reaches the client only through the full cone.
            stranger = udp_socket_in(net.public)
            for site, passes in ((cone, False), (full, True)):
                client = udp_socket_in(site.client)
                seen = [ask(client, e.port) for e in echoes]
                assert all(s and s.startswith(site.wan_address + ":") for s in seen), seen
                assert seen[0] == seen[1], f"a {site.nat} NAT keeps one mapping for both destinations: {seen}"
                host, port = seen[0].split(":")
                stranger.sendto(b"unsolicited", (host, int(port)))
                client.settimeout(0.5)
                try:
                    got = client.recv(100) == b"unsolicited"
                except socket.timeout:
                    got = False
                assert got == passes, f"{site.nat}: a stranger's datagram {'did not pass' if passes else 'passed'}"
            # Symmetric: a new port for each destination.
            client = udp_socket_in(symmetric.client)
            seen = [ask(client, e.port) for e in echoes]
            assert all(s and s.startswith(symmetric.wan_address + ":") for s in seen), seen
            assert seen[0] != seen[1], f"a symmetric NAT maps each destination apart: {seen}"
            # The public side has no route into a LAN (a host candidate behind a router is unreachable).
            inside = udp_socket_in(cone.client, ("0.0.0.0", 40000))
            outside = udp_socket_in(net.public)
            inside.settimeout(0.5)
            try:
                outside.sendto(b"hello", (cone.lan_address, 40000))
            except OSError as error:
                assert error.errno == 101, error   # ENETUNREACH: no route, as on the internet
            try:
                inside.recv(100)
                raise AssertionError("a datagram from the public namespace reached the LAN")
            except socket.timeout:
                pass
            # 20 % random loss each way: about 80 % of 500 questions reach the echo and 80 % of its answers return.
            client = udp_socket_in(lossy.client)
            before = echoes[0].received
            answered = 0
            client.setblocking(False)
            for _ in range(500):
                client.sendto(b"?", (PUBLIC_ADDRESS, echoes[0].port))
                time.sleep(0.001)
                # Read as we go: a socket buffer holds only a few hundred small datagrams.
                try:
                    while True:
                        client.recv(100)
                        answered += 1
                except BlockingIOError:
                    pass
            client.settimeout(0.5)
            try:
                while True:
                    client.recv(100)
                    answered += 1
            except socket.timeout:
                pass
            arrived = echoes[0].received - before
            assert 0.72 <= arrived / 500 <= 0.88, f"{arrived} of 500 arrived through 20 % loss"
            assert 0.72 <= answered / arrived <= 0.88, f"{answered} of {arrived} answers came back through 20 % loss"
            # 500 kbit/s: 2 s of 1000-byte datagrams offered at about 2 Mbit/s arrive at about 500 kbit/s.
            sink = Echo(net.public)
            client = udp_socket_in(slow.client)
            start = time.monotonic()
            while time.monotonic() - start < 2.0:
                client.sendto(b"x" * 1000, (PUBLIC_ADDRESS, sink.port))
                time.sleep(0.004)
            time.sleep(0.4)   # the 300 ms buffer drains
            kbit = sink.bytes * 8 / 1000 / (time.monotonic() - start)
            assert 350 <= kbit <= 600, f"{kbit:.0f} kbit/s through a 500 kbit/s bottleneck"
            print(f"symmetric NAT ports {seen}; loss: {arrived}/500 arrived, {answered} answered; bottleneck carried {kbit:.0f} kbit/s")
        finally:
            for e in echoes:
                e.close()
    left = [n for n in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()
            if n.startswith(PREFIX)]
    assert not left, f"namespaces left behind: {left}"
