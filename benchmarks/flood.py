"""The friend's way in under a connection flood from many networks, over loopback.

Run: .venv/bin/python benchmarks/flood.py [--joins N] [--networks N] [--seconds S]

A thread of this process opens TCP connections to the host as fast as it can (non-blocking
connects: the kernel completes each handshake), from
``--networks`` loopback /24s (127.n.m.1: every one routes to lo), and never sends a byte;
it keeps the newest 2000 open (the host evicts them long before). Meanwhile the friend, with
the invite, joins ``--joins`` times in a row, from another thread with its own event loop
(as from its own machine: it sends its hello and knock as soon as its connection is up). Printed: how many joins succeeded, their
handshake times, the flood's connection rate, and the most connections that arrived between
a friend's connection arriving and its hello and knock being read (the figure that
:data:`p2p.admission.MAX_ARRIVING` must exceed: docs/operations.md, "Admission").
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Hashable
from pathlib import Path

# Run as a script, this folder heads sys.path and its engine.py would shadow the engine package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cli.home import Home
from engine import Rules
from p2p.admission import MAX_ARRIVING, Admission
from p2p.connect import Listener, join, listening_socket
from p2p.errors import P2PError
from p2p.handshake import Terms
from p2p.identity import Identity, KnownPeers, load_identity
from p2p.invite import Invite

FRIEND = "127.0.0.1"
"""The friend's source (the flood comes from 127.10.0.1 and up)."""


class CountingAdmission(Admission):
    """Admission that also counts the arrivals between each connection's arrival and its flight."""

    def __init__(self) -> None:
        super().__init__()
        self.arrivals = 0
        self._at: dict[Hashable, int] = {}
        self.overtaken: list[int] = []
        """For each first flight read: how many connections arrived after it did."""
        self._friends: set[Hashable] = set()
        self.evicted = 0
        """The friend's connections dropped before their first flight was read."""

    @property
    def reserved(self) -> str | None:
        """None: every join of the friend gets a first join's odds, no reserved slot."""
        return None

    @reserved.setter
    def reserved(self, source: str | None) -> None:
        pass

    def arrive(self, key: Hashable, source: str) -> list[Hashable]:
        self.arrivals += 1
        self._at[key] = self.arrivals
        if source == FRIEND:
            self._friends.add(key)
        dropped = super().arrive(key, source)
        self.evicted += sum(key in self._friends for key in dropped)
        return dropped

    def flown(self, key: Hashable, proven: bool) -> list[Hashable] | None:
        self.overtaken.append(self.arrivals - self._at.pop(key))
        return super().flown(key, proven)

    def leave(self, key: Hashable) -> None:
        self._at.pop(key, None)
        self._friends.discard(key)
        super().leave(key)


def flood(port: int, networks: int, stop: threading.Event, opened: list[int]) -> None:
    """Connect from ``networks`` /24s until ``stop``, never sending; the newest 2000 kept open."""
    kept: collections.deque[socket.socket] = collections.deque()
    n = 0
    while not stop.is_set():
        source = f"127.{10 + n % networks // 250}.{n % networks % 250}.1"
        n += 1
        sock = socket.socket()
        sock.setblocking(False)  # the kernel completes loopback handshakes: no waiting for each
        try:
            sock.bind((source, 0))
            sock.connect_ex(("127.0.0.1", port))
        except OSError:
            sock.close()
            continue
        kept.append(sock)
        opened[0] += 1
        if len(kept) > 2000:
            kept.popleft().close()
    for sock in kept:
        sock.close()


async def main(joins: int, networks: int, seconds: float) -> None:
    root = Path(tempfile.mkdtemp())
    ann, bob = (Home(root / who / "config", root / who / "data") for who in ("ann", "bob"))
    ann_me, bob_me = load_identity(ann.identity_file), load_identity(bob.identity_file)
    admission = CountingAdmission()
    sock = listening_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    listener = Listener(sock, ann_me, "ann", Terms(Rules()), KnownPeers(ann.peers_file), admission=admission)
    stop, opened = threading.Event(), [0]
    async with listener:
        invite = listener.invite([("127.0.0.1", port)])
        flooder = threading.Thread(target=flood, args=(port, networks, stop, opened))
        flooder.start()
        await asyncio.sleep(1.0)  # the flood in full swing
        start, begun, accepted = time.monotonic(), opened[0], admission.arrivals
        times, failures = [], []
        for _ in range(joins):
            if time.monotonic() - start > seconds:
                break
            began = time.monotonic()
            failure = await asyncio.to_thread(_join, invite, bob_me, KnownPeers(bob.peers_file))
            if failure is not None:
                failures.append(failure)
                continue
            times.append(time.monotonic() - began)
        took = time.monotonic() - start
        rate, accept_rate = (opened[0] - begun) / took, (admission.arrivals - accepted) / took
        stop.set()
        flooder.join()
    print(f"flood: {rate:.0f} connections/s from {networks} networks, never sending; "
          f"the host accepted {accept_rate:.0f}/s")  # fmt: skip
    print(f"joins: {len(times)} of {len(times) + len(failures)} admitted")
    for failure, count in collections.Counter(failures).most_common():
        print(f"  {count} failed: {failure}")
    if times:
        print(f"handshake under the flood: median {statistics.median(times) * 1000:.1f} ms, "
              f"max {max(times) * 1000:.1f} ms")  # fmt: skip
    print(f"arrivals between a connection's arrival and its first flight read: "
          f"at most {max(admission.overtaken)} (first-flight slots: {MAX_ARRIVING})")  # fmt: skip
    print(f"friend's connections evicted before their first flight was read: {admission.evicted}")


def _join(invite: Invite, me: Identity, known: KnownPeers) -> str | None:
    """The friend's join, in its own thread and event loop (as on its own machine): the error, if any."""

    async def joined() -> None:
        channel, _ = await join(invite, me, "bob", known, _accept)
        channel.abort()

    try:
        asyncio.run(joined())
    except P2PError as exc:
        return str(exc)
    return None


async def _accept(terms: Terms, host_name: str) -> bool:
    return True


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--joins", type=int, default=20)
    parser.add_argument("--networks", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    asyncio.run(main(args.joins, args.networks, args.seconds))
