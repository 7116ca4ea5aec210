"""Network duel speed over loopback: handshake plus deal, and the per-move round trip
next to a raw TCP ping-pong measured in the same run.

Run: .venv/bin/python benchmarks/net.py [--matches N] [--restarts N]

``--restarts N`` also times, with ``trumps host/join --bot`` as separate processes, how long
a side ``kill -9``-ed mid-game takes to be back in play when started again with the same
command: from the restarted process's start to the first new link in its record (Python's
start, reading the match back, the handshake and the resume claims included), joiner and
host alike.

Both peers run in this process on 127.0.0.1 (as two asyncio tasks sharing one
core, like two players on one machine). A move's round trip is the time
between two consecutive turns of the same player: its move is signed, sealed,
sent, opened, schema-checked, signature- and legality- and hash-checked by the
peer, who answers the same way; both sides also append it to their match
records (no fsync per move: see docs/protocol.md, "Records"). Players reply instantly (first legal move),
so the figure is all protocol, engine bookkeeping and socket. The raw
ping-pong sends frames of the same size with nothing done to them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# Run as a script, this folder heads sys.path and its engine.py would shadow the engine package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cli.home import Home
from engine import Game, Move, Rules
from p2p.connect import host, join, listening_socket
from p2p.duel import Duel
from p2p.handshake import Terms
from p2p.identity import KnownPeers, load_identity
from p2p.invite import Invite, new_secret
from p2p.match import Match

FRAME_BYTES = 4 + 8 + 16 + 190  # header, counter, tag and a typical signed move message


class InstantPlayer:
    """Plays the first legal move at once and notes the time between its own turns."""

    def __init__(self, clock: dict[str, float]) -> None:
        self.turn_gaps: list[float] = []
        self.clock = clock
        self._last: tuple[int, int, float] | None = None

    async def preference(self, game_number: int) -> str:
        return "SH"

    async def choose(self, game: Game) -> Move:
        now = time.perf_counter()
        self.clock.setdefault("first_turn", now)
        moves = len(game.moves)
        if self._last is not None and self._last[0] == id(game) and self._last[1] == moves - 2:
            self.turn_gaps.append(now - self._last[2])
        self._last = (id(game), moves, now)
        return game.position.legal_moves()[0]

    def followed_hint(self) -> bool:
        return False

    def heard(self, text: str) -> None:
        pass

    def advanced(self, match: Match) -> None:
        pass


async def one_match(root: Path, index: int) -> tuple[float, float, list[float]]:
    """Handshake seconds, deal seconds, and both players' turn gaps, for one game."""
    homes = [Home(root / f"{index}{side}" / "c", root / f"{index}{side}" / "d") for side in "hj"]
    host_me, join_me = (load_identity(home.identity_file) for home in homes)
    sock = listening_socket("127.0.0.1", 0)
    secret = new_secret()
    invite = Invite((("127.0.0.1", sock.getsockname()[1]),), host_me.fingerprint, secret)

    async def yes(terms: Terms, name: str) -> bool:
        return True

    start = time.perf_counter()
    hosting = asyncio.create_task(
        host(sock, host_me, "ann", Terms(Rules(max_moves=400)), KnownPeers(homes[0].peers_file), secret)
    )
    join_channel, join_session = await join(invite, join_me, "bob", KnownPeers(homes[1].peers_file), yes)
    host_channel, host_session = await hosting
    handshaken = time.perf_counter()
    clock: dict[str, float] = {}
    players = InstantPlayer(clock), InstantPlayer(clock)
    await asyncio.gather(
        Duel(host_channel, host_session, host_me, players[0], homes[0].records, 10).run(),
        Duel(join_channel, join_session, join_me, players[1], homes[1].records, 10).run(),
    )
    return handshaken - start, clock["first_turn"] - handshaken, players[0].turn_gaps + players[1].turn_gaps


async def raw_ping_pong(rounds: int) -> list[float]:
    """Round trips of same-sized frames over a plain loopback TCP connection."""

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                header = await reader.readexactly(4)
                writer.write(header + await reader.readexactly(int.from_bytes(header, "big")))
                await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
    payload = (FRAME_BYTES - 4).to_bytes(4, "big") + bytes(FRAME_BYTES - 4)
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        writer.write(payload)
        await writer.drain()
        header = await reader.readexactly(4)
        await reader.readexactly(int.from_bytes(header, "big"))
        times.append(time.perf_counter() - t)
    writer.close()
    await writer.wait_closed()
    server.close()
    await server.wait_closed()
    return times


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[int(len(ordered) * 0.9)]
    return f"median {statistics.median(ordered) * 1e3:.3f} ms, p90 {p90 * 1e3:.3f} ms (n={len(ordered)})"


TRUMPS = [sys.executable, "-m", "cli"]


def _moves(records: Path) -> int:
    return max((path.read_text().count('"t": "move"') for path in records.glob("*.jsonl")), default=0)


def _links(records: Path) -> int:
    return max((path.read_text().count('"link"') for path in records.glob("*.jsonl")), default=0)


async def _side(root: Path, name: str, *command: str) -> asyncio.subprocess.Process:
    env = os.environ | {"XDG_CONFIG_HOME": str(root / name / "c"), "XDG_DATA_HOME": str(root / name / "d")}
    return await asyncio.create_subprocess_exec(
        *TRUMPS, *command, "--bot", "easy", "--json", "--name", name, "--timeout", "30",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env,
    )  # fmt: skip


async def _polled(ready: Callable[[], bool], limit: float = 30.0) -> None:
    for _ in range(int(limit / 0.002)):
        if ready():
            return
        await asyncio.sleep(0.002)
    raise TimeoutError("the match did not get there")


async def back_in_play(root: Path, victim: str) -> float:
    """Seconds from restarting ``victim`` (``ann`` hosts, ``bob`` joins), killed mid-game, to
    the first new link in its record; the match is then played to its end and checked."""
    host_args = ("host", "--port", "0", "--bind", "127.0.0.1", "--games", "2")
    host = await _side(root, "ann", *host_args)
    assert host.stdout is not None
    invite = (await host.stdout.readline()).decode().split("trumps join ", 1)[1].strip()
    joiner = await _side(root, "bob", "join", invite)
    records = root / victim / "d" / "trumps" / "matches"
    await _polled(lambda: _moves(records) >= 6)
    killed = host if victim == "ann" else joiner
    killed.send_signal(signal.SIGKILL)
    await killed.wait()
    links = _links(records)
    started = time.perf_counter()
    again = await _side(root, victim, *(host_args if victim == "ann" else ("join", invite)))
    await _polled(lambda: _links(records) > links)
    back = time.perf_counter() - started
    for process in (again, joiner if victim == "ann" else host):
        await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == 0, "the resumed match did not complete"
    return back


async def main(matches: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="trumps-net-bench-"))
    handshakes, deals, gaps = [], [], []
    for index in range(matches):
        handshake, deal, turn_gaps = await one_match(root, index)
        handshakes.append(handshake)
        deals.append(deal)
        gaps += turn_gaps
    raw = await raw_ping_pong(max(500, len(gaps)))
    both = [h + d for h, d in zip(handshakes, deals, strict=True)]
    print(f"handshake (TCP connect + key exchange + signatures): {_ms(handshakes)}")
    print(f"deal (2 commitments + 2 reveals, signed):            {_ms(deals)}")
    print(f"handshake + deal:                                    {_ms(both)}")
    print(f"per-move round trip, protocol:                       {_ms(gaps)}")
    print(f"raw TCP ping-pong, {FRAME_BYTES}-byte frames:                {_ms(raw)}")
    overhead = statistics.median(gaps) - statistics.median(raw)
    print(f"per-move overhead above raw round trip (medians):    {overhead * 1e3:.3f} ms (target < 1 ms)")


async def restarts(count: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="trumps-restart-bench-"))
    for victim, role in (("bob", "joiner"), ("ann", "host")):
        figures = [await back_in_play(root / f"{victim}{index}", victim) for index in range(count)]
        print(f"back in play after kill -9 and restart, {role}:{' ' * (14 - len(role))}{_ms(figures)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20, help="matches of one game to time (default 20)")
    parser.add_argument(
        "--restarts", type=int, default=0, help="kill -9 and restart rounds to time per side (default 0)"
    )
    options = parser.parse_args()
    asyncio.run(main(options.matches))
    if options.restarts:
        asyncio.run(restarts(options.restarts))
