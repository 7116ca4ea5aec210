"""Duel under fire: drops, corruption and half-open lines resume exactly; silence, stalls and
departures end in a recorded forfeit or abandonment; a different history is refused with evidence."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from cli.main import main as cli_main
from engine import Rules
from p2p.channel import Channel
from p2p.connect import Listener, Redial, join, join_on, listening_socket
from p2p.duel import Duel, Report
from p2p.errors import HistoryMismatch, P2PError, PeerBusy
from p2p.handshake import HostHandshake, Session, Terms
from p2p.invite import Invite, new_secret
from p2p.liveness import Patience
from p2p.match import sign_resume
from p2p.messages import Abort, Resume
from p2p.players import BotPlayer, Player
from p2p.reception import perform
from p2p.record import verify
from tests.support.lines import Fault, FaultyLine
from tests.support.peers import Side, Unwatched, accept_all, connect_pair, run

pytestmark = pytest.mark.net

FAST = Patience(keepalive=0.2, silent_after=0.5, dead_after=1.5, forfeit_after=4.0)


@dataclass
class Resilient:
    """A host and a joiner that play through a faulty line, each able to get the other back."""

    ann: Side
    bob: Side
    listener: Listener
    line: FaultyLine
    invite: Invite
    statuses: tuple[list[str], list[str]]

    async def duels(
        self, players: tuple[Player, Player], patience: Patience = FAST, peer_timeout: float = 10
    ) -> tuple[Duel, Duel]:
        join_channel, join_session = await join(self.invite, self.bob.me, "bob", self.bob.known, accept_all)
        host_channel, host_session = await self.listener.first()
        redial = Redial(self.invite, self.bob.me, "bob", self.bob.known, join_session, 0.05, 0.2)
        host = Duel(
            host_channel, host_session, self.ann.me, players[0], self.ann.home.records, peer_timeout,
            None, self.listener, patience, self.statuses[0].append,
        )  # fmt: skip
        joiner = Duel(
            join_channel, join_session, self.bob.me, players[1], self.bob.home.records, peer_timeout,
            None, redial, patience, self.statuses[1].append,
        )  # fmt: skip
        return host, joiner


@contextlib.asynccontextmanager
async def resilient(root: Path, faults: dict[int, Fault], games: int = 1) -> AsyncIterator[Resilient]:
    ann, bob = Side.make(root, "ann"), Side.make(root, "bob")
    sock = listening_socket("127.0.0.1", 0)
    async with Listener(sock, ann.me, "ann", Terms(Rules(), games), ann.known) as listener:
        line = FaultyLine(sock.getsockname()[1], faults)
        port = await line.start()
        try:
            yield Resilient(ann, bob, listener, line, listener.invite([("127.0.0.1", port)]), ([], []))
        finally:
            line.close()


async def _play(root: Path, faults: dict[int, Fault], games: int = 1, seed: int = 0) -> tuple[Report, Report]:
    async with resilient(root, faults, games) as net:
        host, joiner = await net.duels((BotPlayer("easy", seed=seed), BotPlayer("easy", seed=seed + 1)))
        try:
            return await asyncio.gather(host.run(), joiner.run())
        finally:
            await host.channel.close()
            await joiner.channel.close()


def _same_complete_match(host: Report, joiner: Report) -> None:
    assert host.end == joiner.end == "complete", (host.error, joiner.error)
    assert host.match.transcript == joiner.match.transcript
    assert [r.text for r in host.match.results] == [r.text for r in joiner.match.results]
    for report in (host, joiner):
        verified = verify(report.record.read_text())
        assert verified.complete and verified.match.transcript == report.match.transcript


@pytest.mark.parametrize("after", [1000, 1500, 3000, 6000])  # the handshake is ~700 bytes
def test_a_dropped_connection_resumes_exactly_where_it_stopped(tmp_path: Path, after: int) -> None:
    host, joiner = run(_play(tmp_path, {0: Fault("cut", after), 1: Fault("cut", after + 3000)}, games=3))
    _same_complete_match(host, joiner)
    assert host.reconnects >= 1 and joiner.reconnects >= 1


def test_a_frame_that_fails_authentication_resumes(tmp_path: Path) -> None:
    host, joiner = run(_play(tmp_path, {0: Fault("flip", 1200)}, seed=3))
    _same_complete_match(host, joiner)
    assert host.reconnects == joiner.reconnects == 1


def test_a_half_open_line_is_noticed_and_replaced(tmp_path: Path) -> None:
    async def scenario() -> tuple[Report, Report, list[str]]:
        async with resilient(tmp_path, {0: Fault("stall", 2500)}) as net:
            host, joiner = await net.duels((BotPlayer("easy"), BotPlayer("easy", seed=1)))
            reports = await asyncio.gather(host.run(), joiner.run())
            await host.channel.close()
            await joiner.channel.close()
            return reports[0], reports[1], net.statuses[1]

    host, joiner, statuses = run(scenario())
    _same_complete_match(host, joiner)
    assert any("ann silent for" in line for line in statuses), statuses
    assert any("connection to ann lost (nothing from ann for" in line for line in statuses)
    assert any("reconnected to ann" in line for line in statuses)


def test_a_peer_gone_for_good_is_claimed_by_forfeit_with_the_reason(tmp_path: Path) -> None:
    async def scenario() -> tuple[Report, list[str]]:
        async with resilient(tmp_path, {}) as net:
            host, joiner = await net.duels((BotPlayer("easy"), BotPlayer("easy")))
            hosting, vanished = asyncio.create_task(host.run()), asyncio.create_task(joiner.run())
            while len(host.match.links) < 6:
                await asyncio.sleep(0.001)
            joiner.line.reconnector = None  # the joiner's process dies: its socket closes, nobody comes back
            joiner.line.interrupt()
            await vanished
            return await hosting, net.statuses[0]

    report, statuses = run(scenario())
    assert report.end == "forfeit"
    assert "bob has been unreachable for 4 s (limit 4 s)" in str(report.error)
    # the host redials nothing: it says what happened and counts down its wait (issue 22, item 10)
    assert any(line.startswith("bob is gone (") and "waiting up to 0:0" in line for line in statuses)
    note = verify(report.record.read_text()).end
    assert note is not None and note["end"] == "forfeit" and "after the deal of game 1" in note["detail"]


def test_an_interactive_player_claims_only_after_the_limit(tmp_path: Path) -> None:
    patience = Patience(keepalive=0.2, silent_after=0.3, dead_after=5, forfeit_after=0.8, auto_claim=False)

    async def scenario() -> tuple[Report, list[str], bool]:
        async with resilient(tmp_path, {0: Fault("stall", 2000)}) as net:
            host, joiner = await net.duels((BotPlayer("easy"), BotPlayer("easy")), patience)
            early = host.claim()
            playing = asyncio.create_task(joiner.run())
            hosting = asyncio.create_task(host.run())
            while not any("/claim" in line for line in net.statuses[0]):
                await asyncio.sleep(0.05)
            assert host.claim()
            report = await hosting
            playing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await playing
            return report, net.statuses[0], early

    report, statuses, early = run(scenario())
    assert not early
    assert report.end == "forfeit" and "silent" in str(report.error)
    assert any("type /claim to claim the game by forfeit" in line for line in statuses)


def test_a_peer_returning_with_another_history_is_refused_with_evidence(tmp_path: Path) -> None:
    async def scenario() -> tuple[Report, P2PError]:
        async with resilient(tmp_path, {0: Fault("cut", 3000)}) as net:
            host, joiner = await net.duels((BotPlayer("easy"), BotPlayer("easy")))
            hosting = asyncio.create_task(host.run())
            joiner.line.reconnector = None  # the honest joiner gives up when the line drops…
            with contextlib.suppress(P2PError):
                await joiner.run()
            # …and comes back claiming a history of its own making, signed with its key
            channel, _ = await join(net.invite, net.bob.me, "bob", net.bob.known, accept_all)
            match = joiner.match
            forged = sign_resume(net.bob.me.key, match.session_id, 1, bytes(32))
            await channel.send(forged)
            with pytest.raises(P2PError) as refused:
                while True:
                    message = await channel.recv(5)
                    assert isinstance(message, Resume)
            await channel.close()
            return await hosting, refused.value

    report, refused = run(scenario())
    assert report.end == "cheat" and isinstance(report.error, HistoryMismatch)
    assert "another history" in str(refused)
    verified = verify(report.record.read_text())
    assert isinstance(verified.evidence_error, HistoryMismatch)  # the signed claim proves it on its own
    assert "the kept evidence proves" in verified.summary()


def test_a_third_party_is_refused_mid_game_while_the_match_goes_on(tmp_path: Path) -> None:
    eve = Side.make(tmp_path, "eve")
    impostor = Side.make(tmp_path / "elsewhere", "bob")

    async def scenario() -> tuple[Report, Report, list[str]]:
        async with resilient(tmp_path, {}) as net:
            host, joiner = await net.duels((BotPlayer("easy"), BotPlayer("easy", seed=2)))
            hosting, playing = asyncio.create_task(host.run()), asyncio.create_task(joiner.run())
            while not host.match.revealed:
                await asyncio.sleep(0.01)
            refusals = []
            for side in (eve, impostor):  # another name; the same name with another key
                with pytest.raises(P2PError) as busy:
                    channel, _ = await join(net.invite, side.me, side.name, side.known, accept_all)
                    await channel.recv(5)
                refusals.append(str(busy.value))
            return await hosting, await playing, refusals

    host, joiner, refusals = run(scenario())
    _same_complete_match(host, joiner)
    assert host.reconnects == 0
    assert refusals == [  # eve before any rules, in our words; the impostor at its accept, sealed: ann's
        "the host refused: it is playing another match right now: try again later",
        "ann is playing another match right now: try again later",
    ]


def test_the_joiner_coming_back_after_the_match_is_told_it_is_over(tmp_path: Path) -> None:
    """Flaw: once the match was over (its joiner left, or it ended) the host still let that joiner
    in as returning and queued its connection for a duel that no longer reads: the joiner, back
    with the same join line, got through the handshake and waited for a deal for ever (and one
    redialling, still in the match, redialled until its forfeit limit). Now it is refused at once,
    by the host's own (sealed) words, which end a redial too, and the host's report says why; a
    rematch's duel takes its returns again."""

    async def scenario() -> tuple[Report, Report, str, list[str], bool]:
        async with resilient(tmp_path, {}) as net:
            host, joiner = await net.duels((BotPlayer("easy"), BotPlayer("easy", seed=2)))
            reports = await asyncio.gather(host.run(), joiner.run())
            with pytest.raises(P2PError) as over:
                async with asyncio.timeout(10):  # before the fix: a handshake that never ends in a deal
                    channel, _ = await join(net.invite, net.bob.me, "bob", net.bob.known, accept_all)
                    await channel.recv(5)
            redial = Redial(net.invite, net.bob.me, "bob", net.bob.known, joiner.session, 0.05, 0.2)
            with pytest.raises(PeerBusy) as redialled:  # a joiner that thought the match still on
                await asyncio.wait_for(redial.reconnect(), 10)  # before: redialled until its limit
            assert "ann's match with you is over" in str(redialled.value)
            reasons = [str(error) for _, error in net.listener.refusals]
            again = await asyncio.gather(host.rematch(True), joiner.rematch(True))  # its duel watches
            assert again[0] is not None and again[1] is not None
            back, _ = await join(net.invite, net.bob.me, "bob", net.bob.known, accept_all)
            returned = await asyncio.wait_for(net.listener.reconnect(), 5)
            for channel in (back, returned[0], host.channel, joiner.channel):
                await channel.close()
            return *reports, str(over.value), reasons, returned[1].hello.name == "bob"

    host, joiner, over, reasons, returned = run(scenario())
    _same_complete_match(host, joiner)
    assert "ann's match with you is over: ask for a new invite to play again" in over
    assert reasons == ["bob came back after the match was over"] * 2
    assert returned


def test_each_reconnection_runs_a_fresh_handshake_with_fresh_keys(tmp_path: Path) -> None:
    sessions: list[bytes] = []

    class Recording(Redial):
        async def reconnect(self) -> tuple[Channel, Session]:
            channel, session = await super().reconnect()
            sessions.append(session.session_id)
            return channel, session

    async def scenario() -> tuple[Report, Report]:
        async with resilient(tmp_path, {0: Fault("cut", 1500), 1: Fault("cut", 4000)}, games=2) as net:
            host, joiner = await net.duels((BotPlayer("easy", seed=7), BotPlayer("easy", seed=8)))
            redial = joiner.line.reconnector
            assert isinstance(redial, Redial)
            joiner.line.reconnector = Recording(**{f: getattr(redial, f) for f in redial.__dataclass_fields__})
            reports = await asyncio.gather(host.run(), joiner.run())
            return reports[0], reports[1]

    host, joiner = run(scenario())
    _same_complete_match(host, joiner)
    first = joiner.session.session_id
    assert len(sessions) == 2 and len({first, *sessions}) == 3  # new session ids, hence new keys
    assert host.match.session_id == first  # the match keeps its root


def test_a_redial_is_not_ended_by_refusals_anyone_could_forge(tmp_path: Path) -> None:
    """While the joiner redials, a clear 'busy' or 'declined' and an offer under another key are
    not the host's word: the redial keeps trying (the duel's forfeit limit bounds it)."""
    ann, bob, eve = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob"), Side.make(tmp_path, "eve")
    attempts: list[int] = []
    secret = new_secret()

    async def impostor(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        attempts.append(1)
        channel = Channel(reader, writer)
        if len(attempts) % 3 == 0:  # an offer signed by eve, not by the invite's key (she has its secret)
            machine = HostHandshake(eve.me, "ann", Terms(Rules()), secret)
            with contextlib.suppress(P2PError):
                for _ in range(2):
                    await perform(channel, machine.receive(await channel.recv(5)))
                await channel.recv(5)
        else:
            await channel.recv(5)  # the hello
            await channel.send(
                Abort(reason="busy" if len(attempts) % 3 == 1 else "declined", detail="go away")
            )
        await channel.close()

    async def scenario() -> None:
        server = await asyncio.start_server(impostor, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        pair = await connect_pair(ann, bob)
        redial = Redial(ann.invite(port, secret), bob.me, "bob", bob.known, pair.join_session, 0.01, 0.02)
        attempt = asyncio.ensure_future(redial.reconnect())
        while len(attempts) < 7 and not attempt.done():
            await asyncio.sleep(0.02)
        assert not attempt.done(), attempt.exception()
        attempt.cancel()
        server.close()
        await pair.join_channel.close()
        await pair.host_channel.close()

    run(scenario())


def test_a_flood_while_resuming_after_a_cut_does_not_keep_the_joiner_out(tmp_path: Path) -> None:
    """Flaw 4: 60 silent connections a second from elsewhere while the line is cut: the joiner's
    return (its source has a reserved slot, and a proven handshake is never evicted) gets in."""

    async def flood(port: int, stop: asyncio.Event, full: asyncio.Event) -> int:
        writers, count = [], 0
        while not stop.is_set():
            if count == 30:
                full.set()  # each flooding address has filled its share of slots for a while
            source = f"127.0.2.{1 + count % 5}"
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
                writers.append(writer)
            count += 1
            await asyncio.sleep(1 / 60)
        for writer in writers:
            writer.transport.abort()
        return count

    async def scenario() -> tuple[Report, Report, int, int]:
        async with resilient(tmp_path, {0: Fault("cut", 3000)}) as net:
            host, joiner = await net.duels((BotPlayer("easy"), BotPlayer("easy", seed=1)))
            stop, full = asyncio.Event(), asyncio.Event()
            flooding = asyncio.create_task(flood(net.listener.sock.getsockname()[1], stop, full))
            await full.wait()
            reports = await asyncio.gather(host.run(), joiner.run())
            stop.set()
            await host.channel.close()
            await joiner.channel.close()
            return reports[0], reports[1], await flooding, net.listener.refused_count

    host, joiner, flooded, refused = run(scenario())
    _same_complete_match(host, joiner)
    assert host.reconnects >= 1 and flooded > 20 and refused > 0


def test_two_sides_that_lost_each_other_both_claim_the_game_as_their_own_account(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The line is cut and every redial fails: each side sees the other away past the limit. No
    protocol without a third party tells this outage from a deliberate exit, so each stayer is
    awarded the game as its own unsigned claim (the seats are equal); ``trumps verify`` given both
    records shows the dispute (docs/protocol.md, "Forfeits")."""
    never_back = {i: Fault("cut", 3000 if i == 0 else 0) for i in range(400)}
    patience = Patience(keepalive=0.1, silent_after=0.3, dead_after=0.5, forfeit_after=0.8)

    async def scenario() -> tuple[Report, Report]:
        async with resilient(tmp_path, never_back) as net:
            host, joiner = await net.duels((BotPlayer("easy"), BotPlayer("easy", seed=1)), patience)
            reports = await asyncio.gather(host.run(), joiner.run())
            return reports[0], reports[1]

    host, joiner = run(scenario())
    assert (host.end, host.awarded) == ("forfeit", 0)
    assert (joiner.end, joiner.awarded) == ("forfeit", 1)
    assert cli_main(["verify", str(host.record), str(joiner.record)]) == 1
    out = capsys.readouterr().out
    assert "DISPUTED: game 1: each record awards it to its own saver" in out


@dataclass
class FromElsewhere(Unwatched):
    """The joiner's way back after a drop, from another address of this machine (``source``): the
    same player come back over another network (a :class:`~p2p.duel_line.Reconnector`)."""

    invite: Invite
    bob: Side
    source: str

    async def reconnect(self) -> tuple[Channel, Session]:
        host, port = self.invite.addresses[0]
        reader, writer = await asyncio.open_connection(host, port, local_addr=(self.source, 0))
        channel = Channel(reader, writer)
        return channel, await join_on(channel, self.invite, self.bob.me, "bob", self.bob.known, accept_all)


def test_the_hosts_saved_match_follows_its_joiner_to_a_new_address(tmp_path: Path) -> None:
    """Flaw: the host's saved state kept the address its joiner began the match from, so after
    the joiner came back from another one (a laptop moved to another network) a restarted host
    reserved a source nobody played from. Once the resume from the new address is through, the
    saved state holds that address (read back from disk the moment the host says it reconnected)."""
    from p2p.saved import SavedMatch, load_saved

    state = tmp_path / "hosted.json"
    seen: list[str | None] = []

    async def scenario() -> tuple[Report, Report]:
        async with resilient(tmp_path, {0: Fault("cut", 3000)}) as net:  # the first line breaks
            join_channel, join_session = await join(net.invite, net.bob.me, "bob", net.bob.known, accept_all)
            host_channel, host_session = await net.listener.first()
            assert host_channel.peer_host == "127.0.0.1"  # the relay's side of the first line
            direct = replace(net.invite, addresses=(("127.0.0.1", net.listener.sock.getsockname()[1]),))

            def status(text: str) -> None:
                if text.startswith("reconnected"):
                    seen.append(load_saved(state).joiner)

            host = Duel(
                host_channel, host_session, net.ann.me, BotPlayer("easy"), net.ann.home.records, 10,
                None, net.listener, FAST, status, SavedMatch(state, joiner=host_channel.peer_host),
            )  # fmt: skip
            joiner = Duel(
                join_channel, join_session, net.bob.me, BotPlayer("easy", seed=1), net.bob.home.records, 10,
                None, FromElsewhere(direct, net.bob, "127.0.0.2"), FAST,
            )  # fmt: skip
            try:
                return await asyncio.gather(host.run(), joiner.run())
            finally:
                await host.channel.close()
                await joiner.channel.close()

    host, joiner = run(scenario())
    _same_complete_match(host, joiner)
    assert host.reconnects == 1 and seen == ["127.0.0.2"]


async def _replayed(port: int, recorded: bytes) -> list[object]:
    """``recorded`` sent, byte for byte, into a fresh connection to ``port``: what comes back (the
    messages the host sends in clear) until the host closes it."""
    from p2p.errors import WireError
    from p2p.wire import decode, read_frame

    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(recorded)
    heard: list[object] = []
    with contextlib.suppress(P2PError, WireError, ConnectionError):
        while True:
            heard.append(decode(await read_frame(reader, 10)))
    writer.transport.abort()
    return heard


@pytest.mark.parametrize("into", ["the same host, later in the match", "the host restarted under its invite"])
def test_a_recorded_reconnection_replayed_into_a_later_connection_binds_nothing(
    tmp_path: Path, into: str
) -> None:
    """Attack (issue 19, replays over real connections): someone on the path recorded the whole of
    bob's second connection — his redial after a cut: hello, knock, accept, the sealed confirm and
    resume claim, the links after it — and replays it byte for byte into a new connection: later
    in the match, or into the host restarted under the same invite (with no memory of the knocks
    it had seen). The first is refused at the knock (its ephemeral key was seen); the second gets
    an offer, but the recorded accept signed another one: nothing opens, nothing is bound, and
    the match goes on (its resume claims and sealed links, rematch flights included, are only
    readable under the keys of the connection that carried them)."""
    from p2p.errors import BadHandshakeSignature, InviteRefused

    async def scenario() -> tuple[Report, Report, list[object], list[P2PError], bool]:
        async with resilient(tmp_path, {0: Fault("cut", 2500)}, games=3) as net:
            host, joiner = await net.duels((BotPlayer("easy", seed=4), BotPlayer("easy", seed=5)))
            hosting, playing = asyncio.create_task(host.run()), asyncio.create_task(joiner.run())
            while net.line.connections < 2 or len(host.match.links) < 30:  # back, and well on after it
                await asyncio.sleep(0.02)
            recorded = bytes(net.line.sent[1])
            if into == "the host restarted under its invite":
                sock = listening_socket("127.0.0.1", 0)
                restarted = Listener(sock, net.ann.me, "ann", Terms(Rules(), 3), net.ann.known, secret=net.listener.secret)
                async with restarted:
                    heard = await _replayed(sock.getsockname()[1], recorded)
                    refusals, bound = [error for _, error in restarted.refusals], restarted.playing is not None
            else:
                heard = await _replayed(net.listener.sock.getsockname()[1], recorded)
                await asyncio.sleep(0.1)
                refusals, bound = [error for _, error in net.listener.refusals], False
            reports = await asyncio.gather(hosting, playing)
            await host.channel.close()
            await joiner.channel.close()
            return reports[0], reports[1], heard, refusals, bound

    host, joiner, heard, refusals, bound = run(scenario())
    _same_complete_match(host, joiner)
    assert host.reconnects == joiner.reconnects == 1 and not bound  # the replay was no return
    if into == "the host restarted under its invite":
        assert [message["t"] for message in heard] == ["offer"]  # type: ignore[index]
        assert [type(error) for error in refusals] == [BadHandshakeSignature]
    else:
        assert [message["reason"] for message in heard] == ["invite"]  # type: ignore[index]
        assert [type(error) for error in refusals] == [InviteRefused]
