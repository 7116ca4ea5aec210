"""Attacks of a hostile peer (or file) that earlier reviews did not cover, each a peer speaking the
protocol and deviating at one point: the claim of docs/protocol.md it tried to break holds (the
table "Claims and their tests" of docs/protocol-rationale.md names each)."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from engine import Rules
from p2p.channel import Channel
from p2p.connect import Listener, join, listening_socket
from p2p.duel import Duel, Report
from p2p.errors import ConnectionClosed, P2PError
from p2p.fairdeal import Pledge
from p2p.handshake import Session, Terms
from p2p.liveness import Liveness, Patience
from p2p.match import Match, position_hash, sign_resume
from p2p.messages import Commit, Message, MoveMsg, Ping, Reveal, Signed
from p2p.players import BotPlayer
from tests.support.peers import Side, Unwatched, accept_all, memory_pair, run


class Comeback(Unwatched):
    """The host's way back to its joiner (a :class:`~p2p.duel.Reconnector`): each fresh connection
    the hostile joiner opens over memory, with a full handshake."""

    def __init__(self) -> None:
        self.returns: asyncio.Queue[tuple[Channel, Session]] = asyncio.Queue()

    async def reconnect(self) -> tuple[Channel, Session]:
        return await self.returns.get()


class Joiner:
    """Seat 1 played by hand against a bot host: honest links, until the test deviates."""

    def __init__(self, ann: Side, bob: Side, channel: Channel, session: Session, back: Comeback) -> None:
        self.ann, self.bob, self.channel, self.back = ann, bob, channel, back
        terms = session.terms
        self.match = Match(session.session_id, session.keys, terms.rules, terms.games)
        self.pledge, self.rng = Pledge.fresh("SH"), random.Random(1)

    async def until(self, stop: Callable[[Match], bool]) -> None:
        """Play honestly until ``stop(match)`` holds where our own link is due."""
        match, key = self.match, self.bob.me.key
        while True:
            due = match.due()
            assert due is not None
            kind, seat = due
            if seat == 0:
                message = await self.channel.recv(10)
                if isinstance(message, Signed):
                    match.apply(message, 0)
                continue
            if stop(match):
                return
            link: Signed
            if kind is Commit:
                commitment = self.pledge.commitment(match.session_id, 1, 1)
                link = match.sign(key, Commit(game=1, commitment=commitment, sig=b""))
            elif kind is Reveal:
                link = match.sign(
                    key, Reveal(game=1, pref=self.pledge.pref, secret=self.pledge.secret, sig=b"")
                )
            else:
                assert match.game is not None
                move = self.rng.choice(match.game.position.legal_moves())
                after = match.game.position.play(move)
                n = len(match.game.moves) + 1
                link = match.sign(
                    key, MoveMsg(game=1, n=n, move=str(move), hash=position_hash(after), sig=b"")
                )
            match.apply(link, 1)
            await self.channel.send(link)

    async def comes_back(self, first: Message | None = None) -> None:
        """Cut the line and come back on a fresh connection, sending ``first`` there (our honest
        resume claim when ``None``) and reading the host's claim."""
        await self.channel.close()
        pair = await memory_pair(self.ann, self.bob, Terms(Rules(), 1))
        await self.back.returns.put((pair.host_channel, pair.host_session))
        self.channel = pair.join_channel
        await self.channel.send(first or self.match.resume_claim(self.bob.me.key))


async def against_a_bot_host(
    root: Path, attack: Callable[[Joiner, asyncio.Task[Report]], Awaitable[None]], patience: Patience
) -> Report:
    """The host's report of a match whose joiner mounts ``attack``."""
    ann, bob = Side.make(root, "ann"), Side.make(root, "bob")
    pair = await memory_pair(ann, bob, Terms(Rules(), 1))
    back = Comeback()
    host = Duel(
        pair.host_channel, pair.host_session, ann.me, BotPlayer("easy", seed=1), ann.home.records,
        patience.forfeit_after, reconnector=back, patience=patience,
    )  # fmt: skip
    hosting = asyncio.create_task(host.run())
    joiner = Joiner(ann, bob, pair.join_channel, pair.join_session, back)
    try:
        await attack(joiner, hosting)
        return await asyncio.wait_for(hosting, 5)
    finally:
        await joiner.channel.close()
        await host.channel.close()


def test_a_peer_that_saw_the_deal_cannot_escape_the_award_with_a_wrong_first_message(tmp_path: Path) -> None:
    """Attack: the joiner sees the host's reveal (the deal is known to it, its own reveal still due),
    cuts the line, comes back and sends a keep-alive where its resume claim is due. That sealed,
    authenticated message was taken for damage on the line (``corrupted``, nobody blamed, no award),
    so walking away from a bad deal paid. It is the joiner's own protocol violation: a cheat, and
    the game is the host's (docs/protocol.md, "Leaving after the deal")."""

    async def attack(joiner: Joiner, hosting: asyncio.Task[Report]) -> None:
        await joiner.until(lambda match: match.deal_known_to(1))
        await joiner.comes_back(Ping())
        try:
            await joiner.channel.recv(5)  # the host's claim; then its abort
            await joiner.channel.recv(5)
        except P2PError:
            pass

    report = run(against_a_bot_host(tmp_path, attack, Patience()))
    assert (report.end, report.awarded) == ("cheat", 0)
    assert "where its resume message was due" in str(report.error)


@pytest.mark.parametrize(
    ("lost_the_hosts_move", "stays", "away"),
    [(False, 0.3, 0.0), (True, 0.3, 0.0), (False, 0.0, 0.6)],
    ids=["honest claim", "claims it lost the host's move", "back for a moment"],
)
def test_coming_back_again_and_again_does_not_restart_the_stall_clock(
    tmp_path: Path, lost_the_hosts_move: bool, stays: float, away: float
) -> None:
    """Attack: the joiner owes its move and never sends it; before the host's limit passes it cuts
    the line and comes back with its resume claim, again and again: honest, or saying each time
    that it lost the host's last move (which the host then resends), or back only for a moment
    and away for most of the limit. Each fresh connection restarted the host's stall clock and
    its count of the joiner's absence, so the game was never claimable: a peer held it hostage
    for ever. A stall is timed from when the link became due, whatever the line did, restarts
    only when the peer is resent links it was never resent before, and counts as soon as the
    peer is heard past the limit (docs/protocol.md, "Forfeits", rule 2)."""
    patience = Patience(keepalive=0.05, silent_after=1.0, dead_after=5, forfeit_after=1.0)

    def stalling(match: Match) -> bool:  # our move is due, after one of the host's
        return match.game is not None and match.links[-1][0] == 0

    async def attack(joiner: Joiner, hosting: asyncio.Task[Report]) -> None:
        await joiner.until(stalling)
        match, key = joiner.match, joiner.bob.me.key
        held = len(match.links) - lost_the_hosts_move
        claim = sign_resume(key, match.session_id, held, match.transcript_at(held))
        for _ in range(20):  # 20 comebacks: six to twelve times the limit
            await joiner.comes_back(claim)
            await asyncio.sleep(stays)
            if away:
                await joiner.channel.close()
                await asyncio.sleep(away)  # away for less than the limit
            if hosting.done():
                return
        raise AssertionError("the host never claimed the game")

    report = run(against_a_bot_host(tmp_path, attack, patience))
    assert (report.end, report.awarded) == ("forfeit", 0)
    assert "bob did not send its move" in str(report.error)


def test_a_stall_is_timed_from_the_due_link_until_the_peer_is_resent_new_links() -> None:
    """The machine behind the attack above: a stall is timed from when the link became due,
    whatever the line did meanwhile, starts again only when a resume resent the peer links it was
    never resent before, and counts once the peer is heard past the limit, even for a moment."""
    clock = Liveness(Patience(silent_after=6, forfeit_after=180), now=0.0)
    clock.awaiting(0, limit=180)
    clock.lost(100.0)
    clock.connected(150.0, resent=False)  # the peer held our link all along
    clock.heard(179.0)
    assert not clock.stalled(179.0)
    assert clock.stalled(180.0)
    clock.lost(181.0)
    clock.connected(240.0, resent=True)  # it lacked our link: due to it from here
    clock.heard(419.0)
    assert not clock.stalled(419.0)
    clock.lost(419.5)
    assert not clock.stalled(430.0)  # down, and not heard past the limit
    clock.connected(430.0, resent=False)  # back for a moment…
    clock.lost(430.1)
    assert clock.stalled(431.0)  # …past the limit: it stalls, though it is gone again
    clock.awaited()
    assert not clock.stalled(431.0)


def test_a_peer_back_past_the_limit_with_more_links_stalls_only_if_they_do_not_come() -> None:
    """The awaited link may be among the links a peer ahead of us resends on its return: no stall
    before they come; one if it sends another frame first, or leaves without them."""
    for then in ("a keep-alive", "the line drops"):
        clock = Liveness(Patience(silent_after=6, forfeit_after=180), now=0.0)
        clock.awaiting(0, limit=180)
        clock.lost(10.0)
        clock.connected(200.0, resent=False, ahead=True)
        assert not clock.stalled(200.0)  # its link may be on its way
        if then == "a keep-alive":
            clock.heard(200.1)
        else:
            clock.lost(200.1)
        assert clock.stalled(200.2)


# ------------------------------------------------------------------ hostile files


@pytest.mark.parametrize(
    "analysis",
    [
        "[" * 100_000 + "]" * 100_000,  # nested deeper than the parser's stack
        '{"moves": [{"number": 1e999, "move": "9H"}]}',  # JSON's 1e999 is an infinite float
    ],
)
def test_a_hostile_analysis_file_is_refused_in_a_line(tmp_path: Path, analysis: str) -> None:
    """Attack: an analysis file beside a record (one received with the record, say) nests too deep
    or numbers a move 1e999. Reading it raised ``RecursionError`` or ``OverflowError``: a traceback
    where ``trumps replay`` shows the record. Now it is "not an analysis of this game", like any
    other damage, and the file is left as it is."""
    from cli import storage
    from cli.analysis_file import load_analysis
    from engine import Game, Position

    game = Game(Position.from_notation("9HJHQHKD/TC/8H SH 0"))
    game.play("QH,KD")
    path = tmp_path / "game.txt.analysis.json"
    path.write_text(analysis, encoding="utf-8")
    with pytest.raises(storage.StorageError, match="is not an analysis of this game"):
        load_analysis(path, game)
    assert path.read_text(encoding="utf-8") == analysis


@pytest.mark.parametrize("host", ["a" * 64 + ".example", "a..b"])
def test_an_invite_naming_an_impossible_host_is_not_an_invite(
    host: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Attack: an invite (text of anyone's choosing, pasted by the joiner) whose host name has a
    label longer than 63 characters, or an empty one. It parsed, and dialing it raised the IDNA
    codec's ``UnicodeError`` out of ``trumps join`` as a traceback. Now the invite is refused in
    one line before anything is dialed."""
    from cli import main as cli_main

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    invite = f"{host}:47111/7j33u3l6rypiweqlbeiso7l7oiwizoth/aaaqeayeaudaocajbifqydiob4ibceqt"
    assert cli_main.main(["join", invite, "--bot", "easy", "--name", "bob"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("trumps join: ") and "is not an invite" in err and len(err.splitlines()) == 1


DAMAGED_PEERS: dict[str, Callable[[str, bytes], object]] = {
    "key not hex": lambda name, key: {name: {"key": "not hex"}},
    "no first_seen": lambda name, key: {name: {"key": key.hex()}},
    "nested too deep": lambda name, key: [[]],
}


@pytest.mark.net
@pytest.mark.parametrize("whose", ["host", "joiner"])
@pytest.mark.parametrize("damage", DAMAGED_PEERS)
def test_a_damaged_known_peers_file_refuses_in_a_line_and_hangs_nobody(
    tmp_path: Path, whose: str, damage: str
) -> None:
    """Attack (a damaged file): the known-peers file names the peer with a key that is not hex,
    lacks its ``first_seen`` (harmless), or nests too deep to parse. ``KnownPeers`` raised ``ValueError``,
    ``KeyError`` or ``RecursionError``, which no handshake expects: on the joiner a traceback, on
    the host a handshake task dying unseen with its connection left open, the joiner waiting in
    vain for the confirmation. Now a damaged file is refused as a :class:`~p2p.errors.P2PError` naming
    it: the host refuses that connection (one line in its report), the joiner says it in one line;
    a missing ``first_seen`` is the first meeting's date unknown, and the match goes on."""
    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
    damaged, peer = (ann, bob) if whose == "host" else (bob, ann)
    text = json.dumps(DAMAGED_PEERS[damage](peer.name, peer.me.public))
    damaged.home.peers_file.parent.mkdir(parents=True, exist_ok=True)
    damaged.home.peers_file.write_text(text.replace("[[]]", "[" * 100_000 + "]" * 100_000))

    async def scenario() -> list[tuple[str, P2PError]]:
        sock = listening_socket("127.0.0.1", 0)
        async with Listener(sock, ann.me, "ann", Terms(Rules(), 1), ann.known) as listener:
            invite = listener.invite([("127.0.0.1", sock.getsockname()[1])])
            joining = asyncio.wait_for(join(invite, bob.me, "bob", bob.known, accept_all), 5)
            if damage == "no first_seen":  # nothing wrong with the key: both get the match
                channel, _ = await joining
                await asyncio.wait_for(listener.first(), 5)
                await channel.close()
                return []
            with pytest.raises(P2PError) as refused:
                await joining
            if whose == "joiner":
                assert f"the known-peers file {bob.home.peers_file}" in str(refused.value)
            return list(listener.refusals)

    refusals = run(scenario())
    if whose == "host" and damage != "no first_seen":
        assert [str(error).split(" is ")[0] for _, error in refusals] == [
            f"the known-peers file {ann.home.peers_file}"
        ]


class Listening(BotPlayer):
    """A bot that keeps the chat lines it hears."""

    def __init__(self, level: str, seed: int) -> None:
        super().__init__(level, seed=seed)
        self.chat: list[str] = []

    def heard(self, text: str) -> None:
        self.chat.append(text)


def test_a_pasted_invisible_character_in_a_chat_line_is_no_cheat(tmp_path: Path) -> None:
    """Not an attack, but what it did to an honest player: a chat line pasted with a zero-width
    space (or typed with a tab) went out as it was; the peer's schema refuses text that is not
    printable, inside a sealed frame, so the peer ended the match as our cheat and, the deal
    being known to us, took the game. ``Duel.say`` now sends the line as the schema allows it:
    white space as a space, other characters that are not printable left out."""

    async def scenario() -> tuple[Report, Report, list[str]]:
        ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
        pair = await memory_pair(ann, bob, Terms(Rules(), 1))
        hearing = Listening("easy", seed=1)
        host = Duel(pair.host_channel, pair.host_session, ann.me, hearing, ann.home.records, 10)
        joiner = Duel(
            pair.join_channel, pair.join_session, bob.me, BotPlayer("easy", seed=2), bob.home.records, 10
        )
        reports = asyncio.gather(host.run(), joiner.run())
        while not joiner.match.revealed:  # bounded by run()'s limit
            await asyncio.sleep(0.01)
        await joiner.say("good\u200b luck,\tann\n")
        mine, theirs = await reports
        await pair.host_channel.close()
        await pair.join_channel.close()
        return mine, theirs, hearing.chat

    host, joiner, heard = run(scenario())
    assert (host.end, joiner.end) == ("complete", "complete"), host.error
    assert heard == ["good luck, ann"]


@pytest.mark.net
@pytest.mark.parametrize("whose", ["host", "joiner"])
def test_a_known_peers_file_that_cannot_be_saved_is_said_in_a_line(
    tmp_path: Path, whose: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk (or a read-only configuration folder) when a side remembers its peer, after the
    key confirmation: the ``OSError`` came out of ``join`` as a traceback, and on the host out of
    the handshake task, after the joiner's ``confirmed`` had gone out: nobody was told, and the
    host waited for its first joiner for ever. Now it is a :class:`~p2p.errors.P2PError` naming
    the file, which ends that side with one line; the host remembers before it confirms, so its
    joiner sees the connection close instead of a match that cannot begin."""
    import p2p.identity
    from p2p.files import write_atomically as writes

    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
    full = (ann if whose == "host" else bob).home.peers_file

    def write(path: Path, data: bytes, mode: int = 0o644, exclusive: bool = False) -> None:
        if path == full:
            raise OSError(28, "No space left on device")
        writes(path, data, mode, exclusive)

    monkeypatch.setattr(p2p.identity, "write_atomically", write)

    async def scenario() -> P2PError:
        sock = listening_socket("127.0.0.1", 0)
        async with Listener(sock, ann.me, "ann", Terms(Rules(), 1), ann.known) as listener:
            invite = listener.invite([("127.0.0.1", sock.getsockname()[1])])
            joining = asyncio.ensure_future(join(invite, bob.me, "bob", bob.known, accept_all))
            with pytest.raises(P2PError) as failed:
                if whose == "host":
                    await asyncio.wait_for(listener.first(), 5)
                else:
                    await asyncio.wait_for(joining, 5)
            if whose == "host":
                with pytest.raises(ConnectionClosed):
                    await joining
            return failed.value

    error = run(scenario())
    assert str(error) == f"cannot save the known-peers file {full}: [Errno 28] No space left on device"


def test_forgetting_the_peer_whose_key_is_damaged_mends_the_file(tmp_path: Path) -> None:
    """The way out the refusal names: ``trumps peers forget NAME`` removes the damaged entry."""
    from p2p.identity import KnownPeers

    path = tmp_path / "known_peers.json"
    path.write_text(json.dumps({"bob": {"key": "not hex"}, "cy": {"key": "00" * 32}}))
    known = KnownPeers(path)
    with pytest.raises(P2PError, match="the key of 'bob' is not 64 hex digits"):
        known.load()
    assert known.forget("bob")
    assert list(known.load()) == ["cy"]


@pytest.mark.net
def test_a_records_folder_that_cannot_be_written_stops_the_duel_in_one_line(tmp_path: Path) -> None:
    """A local failure, not an attack: the joiner's records folder cannot be made (a file of that
    name is in the way; a full disk is the same). The first link to record raised the
    ``OSError``, saving the error note raised it again, and ``trumps join`` ended in a traceback.
    Now it says so in one line."""
    from tests.support.programs import PROGRAM_LIMIT, host_program, join_program

    blocked = tmp_path / "bob" / "data" / "trumps" / "matches"
    blocked.parent.mkdir(parents=True)
    blocked.write_text("in the way")

    async def scenario() -> tuple[int | None, str]:
        host, invite = await host_program(tmp_path)
        try:
            joiner = await join_program(tmp_path, invite)
            _, err = await asyncio.wait_for(joiner.communicate(), PROGRAM_LIMIT)
            return joiner.returncode, err.decode()
        finally:
            host.kill()
            await host.wait()

    status, err = asyncio.run(scenario())
    assert status == 1 and "Traceback" not in err, err
    assert (
        err.splitlines()[-1]
        == f"trumps join: stopped on a local file error: [Errno 17] File exists: '{blocked}'"
    )


@pytest.mark.net
def test_strangers_using_up_the_hosts_questions_cannot_keep_its_lan_joiner_from_coming_back(
    tmp_path: Path,
) -> None:
    """Attack: before the friend joins from the LAN list, a stranger knocks from seven addresses
    (and is told no, or hangs up: the same), so that the friend's question is the host's eighth
    and last. The friend plays; at the first cut its return was refused like any stranger's
    (``welcome`` counted the questions used up), so the match could not resume and the host was
    awarded the friend's absence. The LAN joiner's own return is taken whatever the questions
    ("The LAN knock": "then only the LAN joiner's own return")."""
    from p2p.admission import MAX_QUESTIONS
    from tests.test_p2p_lan import _join_from, _lan_invite

    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")

    async def approve(name: str, address: str, code: str) -> bool:
        return name == "bob"

    async def scenario() -> str:
        sock = listening_socket("127.0.0.1", 0)
        port = sock.getsockname()[1]
        async with Listener(sock, ann.me, "ann", Terms(Rules(), 1), ann.known, approve=approve) as listener:
            for number in range(2, MAX_QUESTIONS + 1):  # seven strangers' questions, each a no
                eve = Side.make(tmp_path, f"eve{number}")
                assert isinstance(await _join_from(ann, port, f"127.0.0.{number}", eve), P2PError)
            channel, _ = await join(_lan_invite(ann, port), bob.me, "bob", bob.known, accept_all)
            host_channel, _ = await listener.first()
            await channel.close()  # the line drops; bob comes back
            back, _ = await asyncio.wait_for(
                join(_lan_invite(ann, port), bob.me, "bob", bob.known, accept_all), 10
            )
            returned, session = await asyncio.wait_for(listener.reconnect(), 10)
            for line in (host_channel, back, returned):
                await line.close()
            return session.hello.name

    assert run(scenario()) == "bob"
