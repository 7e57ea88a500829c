"""An emulated internet out of network namespaces (docs/emulated-network.md): a `public` namespace that plays the
internet (servers live there), and clients each behind a router namespace that does NAT, drops packets at random
and/or holds a bottleneck. Everything is made with `ip`, `nft` and `tc` and torn down by `close()`, even after a
failure; nothing is added to the host's own namespace.

    client ns (10.N.0.2/24) --veth-- router ns (lan 10.N.0.1, wan 100.64.0.(10+N)) --veth-- public ns bridge
                                                                                            (100.64.0.1/24)

Addresses: 100.64.0.0/24 (shared address space, RFC 6598) is the "internet"; 10.N.0.0/24 is client N's LAN. The
public namespace has no route to any LAN, so a host candidate behind a router is unreachable from outside, as on
the real internet.

NAT kinds, all nftables `masquerade` on the router's wan (which keeps the inside source port when it is free):
- `restricted`: Linux's own behaviour, and so most home routers'. The mapping does not depend on the destination,
  but an incoming packet passes only as the reply of a packet sent to exactly that address and port (address- and
  port-dependent filtering). Worse, an unsolicited packet leaves a conntrack entry behind that takes the port: when
  two such NATs punch towards each other, each one's first check blocks the other's mapping, and the two never meet
  (a relay is needed; docs/emulated-network.md).
- `full-cone`: the same mapping, plus every incoming UDP packet on the wan forwarded to the client (a DNAT rule):
  endpoint-independent filtering, so a STUN-learnt address works for any peer.
- `symmetric`: `masquerade random,fully-random`, a new random port for every destination, so a STUN-learnt address
  works for nobody but the STUN server.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import socket
import subprocess
import threading
from dataclasses import dataclass, field

PUBLIC_ADDRESS = "100.64.0.1"
PREFIX = "ctn"          # every namespace and link name the rig makes starts with this
CLONE_NEWNET = 0x40000000


def run(*args: str, ns: str | None = None, check: bool = True, input: str | None = None) -> subprocess.CompletedProcess:
    command = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    done = subprocess.run(command, capture_output=True, text=True, input=input, timeout=20)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    return done


def available() -> str | None:
    """Why the rig cannot run here, or None."""
    if os.geteuid() != 0:
        return "the emulated network needs root (network namespaces)"
    for tool in ("ip", "nft", "tc"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            return f"`{tool}` is not installed (Debian iproute2 / nftables)"
    return None


def sweep() -> None:
    """Deletes namespaces a crashed earlier run left behind (their names start with PREFIX)."""
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()
    for name in listed:
        if name.startswith(PREFIX):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


@dataclass
class Site:
    """A client behind its own router."""
    index: int
    client: str            # namespace names
    router: str
    nat: str
    lan_address: str       # the client's own (host candidate) address
    wan_address: str       # the router's public address (what STUN reports)
    loss_percent: int = 0
    rate_kbit: int | None = None

    def block(self, address: str) -> None:
        """Drops everything the router forwards to or from `address` (a firewall between two sites), in a table of
        its own so that `unblock` lifts exactly this."""
        run("nft", "-f", "-", ns=self.router, input=(
            "table ip block {\n  chain through { type filter hook forward priority filter - 10; policy accept;\n"
            f"    ip daddr {address} drop\n    ip saddr {address} drop\n  }}\n}}\n"))

    def unblock(self) -> None:
        run("nft", "delete", "table", "ip", "block", ns=self.router)


@dataclass
class EmulatedInternet:
    tag: str = field(default_factory=lambda: secrets.token_hex(2))
    sites: list[Site] = field(default_factory=list)
    made: list[str] = field(default_factory=list)

    @property
    def public(self) -> str:
        return f"{PREFIX}{self.tag}pub"

    def __enter__(self) -> EmulatedInternet:
        sweep_stale = os.environ.get("CONFTUI_NETNS_KEEP") is None
        if sweep_stale:
            sweep()
        self._namespace(self.public)
        run("ip", "link", "add", "br0", "type", "bridge", ns=self.public)
        run("ip", "addr", "add", f"{PUBLIC_ADDRESS}/24", "dev", "br0", ns=self.public)
        run("ip", "link", "set", "br0", "up", ns=self.public)
        # A default route, so that software which looks for "the" local address by routing towards the internet
        # (Chromium does, for its host candidate, when the page has no camera permission) finds br0's.
        run("ip", "route", "add", "default", "dev", "br0", ns=self.public)
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for name in reversed(self.made):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
        self.made.clear()

    def _namespace(self, name: str) -> None:
        run("ip", "netns", "add", name)
        self.made.append(name)
        run("ip", "link", "set", "lo", "up", ns=name)

    def add_site(self, nat: str = "restricted", loss_percent: int = 0, rate_kbit: int | None = None,
                 block_udp: bool = False, tcp_port_only: int | None = None) -> Site:
        """A client namespace behind a router. `rate_kbit` limits both directions at the router (tbf on its wan
        for the uplink and on its lan for the downlink, with a 300 ms buffer like a home router's); `loss_percent`
        drops that share of forwarded packets both ways; `block_udp` drops forwarded UDP (a network that only lets
        TCP out); `tcp_port_only` drops all UDP and all TCP but that port's (a hotel or office network that lets
        only HTTPS out: 443)."""
        assert nat in ("restricted", "full-cone", "symmetric")
        n = len(self.sites) + 1
        client, router = f"{PREFIX}{self.tag}c{n}", f"{PREFIX}{self.tag}r{n}"
        self._namespace(router)
        self._namespace(client)
        lan, wan = f"10.{n}.0.2", f"100.64.0.{10 + n}"
        # router wan <-> public bridge
        run("ip", "link", "add", "wan", "netns", router, "type", "veth", "peer", "name", f"p{n}", "netns", self.public)
        run("ip", "link", "set", f"p{n}", "master", "br0", "up", ns=self.public)
        run("ip", "addr", "add", f"{wan}/24", "dev", "wan", ns=router)
        run("ip", "link", "set", "wan", "up", ns=router)
        # client <-> router lan
        run("ip", "link", "add", "lan", "netns", router, "type", "veth", "peer", "name", "eth0", "netns", client)
        run("ip", "addr", "add", f"10.{n}.0.1/24", "dev", "lan", ns=router)
        run("ip", "link", "set", "lan", "up", ns=router)
        run("ip", "addr", "add", f"{lan}/24", "dev", "eth0", ns=client)
        run("ip", "link", "set", "eth0", "up", ns=client)
        run("ip", "route", "add", "default", "via", f"10.{n}.0.1", ns=client)
        # Forwarding in the router's own namespace only (the host's setting is never touched).
        run("sysctl", "-qw", "net.ipv4.ip_forward=1", ns=router)
        masquerade = "masquerade random,fully-random" if nat == "symmetric" else "masquerade"
        rules = [
            "table ip rig {",
            "  chain nat_out { type nat hook postrouting priority srcnat; policy accept;",
            f'    oifname "wan" {masquerade}',
            "  }",
        ]
        if nat == "full-cone":
            # Only NEW flows reach a nat chain: replies keep following their conntrack entries.
            rules += ["  chain nat_in { type nat hook prerouting priority dstnat; policy accept;",
                      f'    iifname "wan" meta l4proto udp dnat to {lan}',
                      "  }"]
        rules += [
            "  chain through { type filter hook forward priority filter; policy accept;",
        ]
        if block_udp or tcp_port_only:
            rules.append("    meta l4proto udp drop")
        if tcp_port_only:
            # Outward connections to that port only; their replies follow conntrack.
            rules += ["    ct state established,related accept",
                      f'    iifname "lan" tcp dport != {int(tcp_port_only)} drop',
                      '    iifname "wan" drop']
        if loss_percent:
            rules.append(f"    numgen random mod 100 lt {int(loss_percent)} drop")
        rules += ["  }", "}"]
        run("nft", "-f", "-", ns=router, input="\n".join(rules) + "\n")
        if rate_kbit:
            for dev in ("wan", "lan"):
                run("tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", f"{rate_kbit}kbit",
                    "burst", "4kb", "latency", "300ms", ns=router)
        site = Site(n, client, router, nat, lan, wan, loss_percent, rate_kbit)
        self.sites.append(site)
        return site

    def move(self, site: Site, to: Site) -> None:
        """Moves `site`'s client behind `to`'s router, as a laptop moves from one network to another: its own link
        goes (with its address), and the link `to`'s client had comes to it, with `to`'s LAN address and default
        route. `to`'s client namespace is left without a network; `site` then describes the new place."""
        run("ip", "link", "del", "eth0", ns=site.client)
        run("ip", "link", "set", "eth0", "netns", site.client, ns=to.client)
        run("ip", "addr", "add", f"{to.lan_address}/24", "dev", "eth0", ns=site.client)
        run("ip", "link", "set", "eth0", "up", ns=site.client)
        run("ip", "route", "add", "default", "via", f"10.{to.index}.0.1", ns=site.client)
        site.router, site.nat, site.lan_address, site.wan_address = to.router, to.nat, to.lan_address, to.wan_address

    def popen(self, ns: str, command: list[str], **kwargs) -> subprocess.Popen:
        return subprocess.Popen(["ip", "netns", "exec", ns, *command], **kwargs)


def _setns(ns: str) -> None:
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    with open(f"/run/netns/{ns}") as f:
        if libc.setns(f.fileno(), CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns into {ns}")


def in_namespace(ns: str, make):
    """`make()` run in a short-lived thread that entered namespace `ns` first. A network namespace belongs to a
    thread (setns(2)) and a socket keeps the namespace it was made in, so sockets made this way work from the
    caller's thread, which never leaves its own namespace."""
    result: dict = {}

    def inside() -> None:
        try:
            _setns(ns)
            result["value"] = make()
        except BaseException as error:  # handed to the caller
            result["error"] = error

    thread = threading.Thread(target=inside, name=f"in-{ns}")
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


def connect_in(ns: str, host: str, port: int, timeout: float = 10.0) -> socket.socket:
    """A TCP connection made from inside namespace `ns`."""
    return in_namespace(ns, lambda: socket.create_connection((host, port), timeout=timeout))


def udp_socket_in(ns: str, address: tuple[str, int] = ("0.0.0.0", 0)) -> socket.socket:
    """A UDP socket of namespace `ns`, bound to `address`."""
    def make() -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(address)
        return sock
    return in_namespace(ns, make)


@contextlib.contextmanager
def emulated_internet():
    why = available()
    if why:
        import pytest
        pytest.skip(why)
    with EmulatedInternet() as net:
        yield net
