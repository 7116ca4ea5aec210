"""Opening a duel: the host's listener and the joiner's connection, each ending in a handshaken session.

The host listens on one socket for both IPv4 and IPv6 where the system
allows (``::`` with dual stack), so that one port number serves every
friend. Connections that fail the handshake are refused and reported, and
the host keeps listening; the first one that succeeds gets the game, and the
listener closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable

from p2p.channel import Channel
from p2p.errors import ConnectionClosed, P2PError, PeerTimeout, RulesDeclined
from p2p.handshake import HANDSHAKE_TIMEOUT, Session, Terms, host_handshake, join_handshake
from p2p.identity import Identity, KnownPeers
from p2p.invite import Invite

Refused = Callable[[str, P2PError], None]


def listening_socket(bind: str | None, port: int) -> socket.socket:
    """A listening TCP socket: ``bind`` (any address when ``None``), IPv4 and IPv6 together if possible."""
    if bind is None:
        if socket.has_dualstack_ipv6():
            return socket.create_server(("::", port), family=socket.AF_INET6, dualstack_ipv6=True)
        return socket.create_server(("0.0.0.0", port))
    infos = socket.getaddrinfo(bind, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, address = infos[0]
    return socket.create_server(address[:2] if family == socket.AF_INET else address, family=family)


async def host(
    sock: socket.socket, me: Identity, name: str, terms: Terms, known: KnownPeers, refused: Refused
) -> tuple[Channel, Session]:
    """Wait on ``sock`` for a joiner who completes the handshake; ``refused`` hears of the others."""
    won: asyncio.Future[tuple[Channel, Session]] = asyncio.get_running_loop().create_future()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        channel = Channel(reader, writer)
        if won.done():
            await channel.close()
            return
        try:
            session = await host_handshake(channel, me, name, terms, known)
        except RulesDeclined as exc:
            if not won.done():
                won.set_exception(exc)
            await channel.close()
            return
        except P2PError as exc:
            refused(channel.peer_address, exc)
            await channel.close()
            return
        if won.done():  # another joiner was faster
            await channel.close()
            return
        won.set_result((channel, session))

    server = await asyncio.start_server(handle, sock=sock)
    try:
        return await won
    finally:
        server.close()


async def join(
    invite: Invite,
    me: Identity,
    name: str,
    known: KnownPeers,
    decide: Callable[[Terms, str], Awaitable[bool]],
) -> tuple[Channel, Session]:
    """Connect to the host of ``invite`` and run the joiner's handshake."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(invite.host, invite.port), HANDSHAKE_TIMEOUT
        )
    except TimeoutError:
        raise PeerTimeout(f"no answer from {invite.host} port {invite.port}") from None
    except OSError as exc:
        raise ConnectionClosed(
            f"cannot connect to {invite.host} port {invite.port} ({exc.strerror or exc}): "
            "is the host still waiting, and can this machine reach that address and port?"
        ) from None
    channel = Channel(reader, writer)
    try:
        session = await join_handshake(channel, me, name, invite.fingerprint, known, decide)
    except BaseException:
        with contextlib.suppress(P2PError):
            await channel.close()
        raise
    return channel, session


def advertised_address(sock: socket.socket, bind: str | None) -> str:
    """The address to put in the invite: the bound one, else this machine's LAN address.

    Best effort without sending anything: the addresses the host name resolves
    to, preferring IPv4 and anything but loopback.
    """
    if bind is not None and bind not in ("::", "0.0.0.0", ""):
        return bind
    candidates: list[str] = []
    with contextlib.suppress(OSError):
        for family, _, _, _, address in socket.getaddrinfo(
            socket.gethostname(), None, type=socket.SOCK_STREAM
        ):
            if family in (socket.AF_INET, socket.AF_INET6):
                candidates.append(str(address[0]))
    usable = [a for a in candidates if not a.startswith(("127.", "::1", "fe80"))]
    usable.sort(key=lambda a: ":" in a)
    if usable:
        return usable[0]
    return "::1" if sock.family == socket.AF_INET6 and not socket.has_dualstack_ipv6() else "127.0.0.1"
