"""The UPnP worker: ``miniupnpc`` run in a child process of its own, whose stderr nobody shows.

miniupnpc is C, and it writes its socket errors straight to file descriptor 2
("sendto: Network is unreachable"), behind Python's back and over a full-screen
game. A process of its own, started by :class:`p2p.portmap.mappers.UpnpMapper`
with stderr to the null device, keeps the terminal clean, and a blocking call on
a router that hangs blocks only it (the host gives up on it after its budget).

It reads one JSON request a line on stdin and writes one JSON answer a line,
with the request's ``id``: ``{"id": 1, "ok": …}`` or ``{"id": 1, "error": "…"}``.
The requests: ``discover`` (find the router: our LAN address and its public
one), ``map`` (``external``, ``internal``, ``lease``: add or renew; the lease
granted, 0 where the router grants only mappings until deleted), ``entry``
(``external``: the router's mapping of that TCP port, ``[client, port]``, or
``null``) and ``unmap`` (``external``). It ends at the end of its input (its
host is gone, even by ``kill -9``). It imports nothing of the project: it is
run by its path. Signals from the terminal (Ctrl-C, a closed window) are the
host's to handle: the host still needs the worker to delete its mapping.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, TextIO


def _discover() -> Any:
    import miniupnpc  # type: ignore[import-not-found,unused-ignore]  # a C extension without types

    client = miniupnpc.UPnP()
    if not client.discover():
        raise LookupError("no UPnP router answered")
    client.selectigd()
    return client


def _map(client: Any, external: int, internal: int, lease: int) -> int:
    def add(seconds: int) -> None:
        client.addportmapping(external, "TCP", client.lanaddr, internal, "Your trumps", "", seconds)

    try:
        add(lease)
    except Exception as exc:
        if "OnlyPermanentLeasesSupported" not in str(exc):
            raise
        lease = 0  # an IGDv1 router that grants only mappings until deleted (or rebooted)
        add(0)
    return lease


def answer(client: Any, request: dict[str, Any]) -> tuple[Any, Any]:
    """The client (found again for ``discover``, or when there is none yet) and the answer's value."""
    op = request["op"]
    if op == "discover" or client is None:
        client = _discover()
    if op == "discover":
        return client, {"lan": client.lanaddr, "external": client.externalipaddress()}
    if op == "map":
        return client, _map(client, int(request["external"]), int(request["internal"]), int(request["lease"]))
    if op == "entry":
        found = client.getspecificportmapping(int(request["external"]), "TCP")
        return client, None if found is None else [found[0], found[1]]
    if op == "unmap":
        return client, client.deleteportmapping(int(request["external"]), "TCP")
    raise ValueError(f"no such request: {op!r}")


def serve(requests: TextIO, answers: TextIO) -> None:
    """Answer each request line of ``requests`` on ``answers`` until the end of ``requests``."""
    client = None
    for line in requests:
        request: dict[str, Any] = {}
        try:
            request = json.loads(line)
            client, value = answer(client, request)
            reply: dict[str, Any] = {"id": request.get("id"), "ok": value}
        except Exception as exc:  # miniupnpc raises a plain Exception, its text often just "Success"
            reply = {"id": request.get("id"), "error": str(exc) or type(exc).__name__}
        answers.write(json.dumps(reply) + "\n")
        answers.flush()


def main() -> None:
    """Run as the worker: answers on a copy of stdout; stdout and stderr themselves go nowhere, so
    nothing miniupnpc's C code prints reaches a terminal or the answers."""
    import signal

    for name in ("SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    serve(sys.stdin, answers)


if __name__ == "__main__":
    main()
