"""Two peers for the tests: their homes and identities, both ends of a handshaken connection
(over loopback by the real drivers, or in memory by the machines alone) to play a duel on, and a
host's reception serving connections over the memory line."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from cli.home import Home
from engine import Game, Move, Rules
from p2p.admission import FIRST_FLIGHT_TIMEOUT, Admission
from p2p.channel import Channel
from p2p.connect import host, join, listening_socket
from p2p.duel import Duel, Report
from p2p.handshake import Session, Terms
from p2p.identity import Identity, KnownPeers, load_identity
from p2p.invite import Invite, new_secret
from p2p.liveness import Patience
from p2p.players import BotPlayer, Player
from p2p.reception import Approve, Reception, RefusalNote
from p2p.text import Text
from p2p.wire import FRAME_DEADLINE
from tests.support.handshakes import session_pair
from tests.support.lines import Meddler, meddling_proxy, memory_streams

LIMIT = 20.0
"""Seconds any one network test may take before it fails."""
SHORT_GAMES = Rules(max_moves=20)
"""Rules whose games end within 20 moves (a draw at the cap, if not sooner), for tests that need
whole matches but not how a game ends: a bot game of the default rules lasts from about 20 to
1 000 moves (the deal, hence the length, differs each run), and its cost with it."""
T = TypeVar("T")


class Unwatched:
    """The rest of a test's :class:`~p2p.duel_line.Reconnector` (its ``reconnect`` is the test's own):
    nothing to watch, no refusals to report, no returns to refuse once the match is over."""

    def watch(self, interrupt: Callable[[], None]) -> None:
        """Nothing tells this way back of a newer connection."""

    def report_to(self, refused: Callable[[Text], None]) -> None:
        """It refuses no connections."""

    def match_over(self) -> None:
        """It takes no returns."""


def run(coro: Awaitable[T]) -> T:
    """Run ``coro`` under the test time limit."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, LIMIT)

    return asyncio.run(bounded())


def ipv6_available() -> bool:
    """Whether ::1 can be listened on here."""
    if not socket.has_ipv6:
        return False
    try:
        with socket.create_server(("::1", 0), family=socket.AF_INET6):
            return True
    except OSError:
        return False


@dataclass
class Side:
    """One peer: its home, identity and name."""

    home: Home
    me: Identity
    name: str

    @classmethod
    def make(cls, root: Path, name: str) -> Side:
        home = Home(root / name / "config", root / name / "data")
        return cls(home, load_identity(home.identity_file), name)

    def invite(self, port: int, secret: bytes, host: str = "127.0.0.1") -> Invite:
        """This side's invite (as host) to ``host``:``port``."""
        return Invite(((host, port),), self.me.fingerprint, secret)

    @property
    def known(self) -> KnownPeers:
        return KnownPeers(self.home.peers_file)


async def accept_all(terms: Terms, host_name: str) -> bool:
    return True


RecordRow = dict[str, Any]
"""A match record's line as ``json.loads`` gives it: untyped, so that a test may tamper with any field."""


@dataclass
class Pair:
    """Both ends of a handshaken connection."""

    host: Side
    joiner: Side
    host_channel: Channel
    host_session: Session
    join_channel: Channel
    join_session: Session

    async def play(
        self, host_player: Player, join_player: Player, timeout: float = 10
    ) -> tuple[Report, Report]:
        """Both sides' duels run to their end; the connection is closed afterwards."""
        host, joiner = self.host, self.joiner
        host_duel = Duel(
            self.host_channel, self.host_session, host.me, host_player, host.home.records, timeout
        )
        join_duel = Duel(
            self.join_channel, self.join_session, joiner.me, join_player, joiner.home.records, timeout
        )
        try:
            reports = await asyncio.gather(host_duel.run(), join_duel.run())
        finally:
            await self.host_channel.close()
            await self.join_channel.close()
        return reports[0], reports[1]


async def connect_pair(
    host_side: Side,
    join_side: Side,
    terms: Terms | None = None,
    bind: str = "127.0.0.1",
    meddle: Meddler | None = None,
    fingerprint: str | None = None,
) -> Pair:
    """Host on ``bind`` port 0, join it (through a meddling proxy if given); the joiner states
    the forfeit limit the host's ``terms`` state."""
    sock = listening_socket(bind, 0)
    port = sock.getsockname()[1]
    terms = terms or Terms(Rules(), 1)
    secret = new_secret()
    hosting = asyncio.create_task(host(sock, host_side.me, host_side.name, terms, host_side.known, secret))
    proxy = None
    if meddle is not None:
        proxy, port = await meddling_proxy(port, meddle)
    invite = Invite(((bind, port),), fingerprint or host_side.me.fingerprint, secret)
    try:
        join_channel, join_session = await join(
            invite, join_side.me, join_side.name, join_side.known, accept_all, limit_ms=terms.limit_ms
        )
    except BaseException:
        hosting.cancel()
        raise
    host_channel, host_session = await hosting
    if proxy is not None:
        proxy.close()
    return Pair(host_side, join_side, host_channel, host_session, join_channel, join_session)


async def bot_duel(
    root: Path, games: int = 1, bind: str | None = "127.0.0.1", levels: tuple[str, str] = ("easy", "easy"),
    rules: Rules | None = None, seed: int = 0, meddle: Meddler | None = None,
) -> tuple[Report, Report]:  # fmt: skip
    """A whole bot match over loopback (over memory, no socket, when ``bind`` is ``None``);
    the host's report, then the joiner's."""
    ann, bob = Side.make(root, "ann"), Side.make(root, "bob")
    terms = Terms(rules or Rules(), games)
    if bind is None:
        pair = await memory_pair(ann, bob, terms, meddle)
    else:
        pair = await connect_pair(ann, bob, terms, bind, meddle)
    return await pair.play(BotPlayer(levels[0], seed=seed), BotPlayer(levels[1], seed=seed + 1))


async def memory_pair(
    host_side: Side, join_side: Side, terms: Terms | None = None, meddle: Meddler | None = None
) -> Pair:
    """Both ends of a handshake between two homes, joined by memory: the machines' own exchange
    (:func:`~tests.support.handshakes.session_pair`), each side remembering the other as its
    driver would; ``meddle`` rewrites what the joiner sends after the handshake. A coroutine only
    because the channels belong to the running event loop."""
    pair = session_pair(
        host_side.me, join_side.me, terms, (host_side.name, join_side.name), (host_side.known, join_side.known)
    )
    host_channel, join_channel = pair.channels(meddle)
    return Pair(host_side, join_side, host_channel, pair.host, join_channel, pair.joiner)


def reception_of(
    side: Side,
    secret: bytes,
    terms: Terms | None = None,
    admission: Admission | None = None,
    approve: Approve | None = None,
) -> Reception:
    """``side``'s reception of joiners under the invite ``secret``, as its listener makes it (the
    default frame and first-flight limits); ``approve``: the person asked about LAN knocks (none:
    they get the stranger's refusal)."""
    return Reception(
        side.me, side.name, terms or Terms(Rules(), 1), side.known, secret,
        Admission() if admission is None else admission, FRAME_DEADLINE, FIRST_FLIGHT_TIMEOUT, approve,
    )  # fmt: skip


Serving = asyncio.Future[tuple[Channel, Session, bool] | None]
"""One connection's serving by a reception: its channel, session and whether its joiner came back,
once let in; ``None`` once refused."""


def memory_connection(reception: Reception, refused: RefusalNote) -> tuple[Serving, Channel]:
    """A connection to ``reception`` over the memory line (call it inside the event loop): the
    future of its serving (what :meth:`~p2p.reception.Reception.serve` returns, its refusals told
    to ``refused``) and the joiner's end, in clear."""
    host_end, join_end = memory_streams()
    return asyncio.ensure_future(reception.serve(*host_end, refused)), Channel(*join_end)


class Stubborn(BotPlayer):
    """A bot that stops moving after ``moves`` moves, while its line stays alive (keep-alives)."""

    def __init__(self, moves: int) -> None:
        super().__init__("easy")
        self.moves = moves

    async def choose(self, game: Game) -> Move:
        self.moves -= 1
        if self.moves < 0:
            await asyncio.sleep(3600)
        return await super().choose(game)


def memory_duels(
    pair: Pair, players: tuple[Player, Player], patience: Patience | None = None, peer_timeout: float | None = 10
) -> tuple[Duel, Duel]:
    """The host's and the joiner's duels over a :func:`memory_pair` (no way back: a lost line ends them),
    timed by the running event loop's clock (:func:`time.monotonic` unless it is a virtual one)."""
    now = asyncio.get_running_loop().time
    return (
        Duel(pair.host_channel, pair.host_session, pair.host.me, players[0], pair.host.home.records, peer_timeout,
             patience=patience, now=now),
        Duel(pair.join_channel, pair.join_session, pair.joiner.me, players[1], pair.joiner.home.records,
             peer_timeout, patience=patience, now=now),
    )  # fmt: skip
