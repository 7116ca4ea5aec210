"""A host listening on loopback for the tests of its listener, and connections to it from any
loopback address (127.0.0.0/8 is all this machine's)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine import Rules
from p2p.admission import FIRST_FLIGHT_TIMEOUT, MAX_ARRIVING, Admission
from p2p.connect import Listener, listening_socket
from p2p.errors import (
    P2PError,
)
from p2p.handshake import Terms
from p2p.wire import FRAME_DEADLINE
from tests.support.peers import Side


async def connect_to(port: int, data: bytes = b"") -> asyncio.StreamWriter:
    """A connection to ``port`` on loopback, ``data`` written on it."""
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    if data:
        writer.write(data)
    return writer


async def connect_from(source: str, port: int, data: bytes = b"") -> asyncio.StreamWriter:
    """A connection from ``source``, another loopback address, ``data`` written on it."""
    _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    if data:
        writer.write(data)
    return writer


def loopback_listener(
    root: Path,
    max_pending: int = 16,
    per_source: int = 4,
    arriving: int = MAX_ARRIVING,
    deadline: float = FRAME_DEADLINE,
    first_flight_timeout: float = FIRST_FLIGHT_TIMEOUT,
) -> tuple[Side, Listener, int]:
    """Ann (home ``root``/ann) listening on a loopback port with these bounds: her side, the
    listener (to be entered) and its port."""
    ann = Side.make(root, "ann")
    sock = listening_socket("127.0.0.1", 0)
    admission = Admission(max_pending=max_pending, max_per_source=per_source, max_arriving=arriving)
    listener = Listener(
        sock,
        ann.me,
        "ann",
        Terms(Rules()),
        ann.known,
        admission=admission,
        deadline=deadline,
        first_flight_timeout=first_flight_timeout,
    )
    return ann, listener, sock.getsockname()[1]


def refusal_errors(listener: Listener) -> list[P2PError]:
    """Why the listener refused each connection it refused, in order."""
    return [error for _, error in listener.refusals]
