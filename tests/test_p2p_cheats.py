"""Cheats and a meddled line, over the in-memory line (the duel's decisions need no socket): every
cheat ends the match with evidence the verifier checks, forged evidence proves nothing, and each
kind of frame altered in transit gets its own error."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine import Game, Move
from engine.cards import cards_of
from p2p.duel import Duel, Report
from p2p.errors import (
    BadSignature,
    CheatError,
    CopiedCommitment,
    IllegalMove,
    OutOfTurn,
    P2PError,
    PeerAborted,
    PositionHashMismatch,
    ReorderedFrame,
    ReplayedFrame,
    RevealMismatch,
    TamperedFrame,
)
from p2p.fairdeal import Pledge
from p2p.match import Match, position_hash
from p2p.messages import Chat, Commit, MoveMsg, Reveal, Signed
from p2p.players import BotPlayer
from p2p.record import verify
from tests.support.lines import Meddler
from tests.support.peers import Pair, Side, bot_duel, memory_pair, run


class SlowBot(BotPlayer):
    """A bot that thinks for a while, so that a peer can move out of turn meanwhile."""

    async def choose(self, game: Game) -> Move:
        await asyncio.sleep(0.3)
        return await super().choose(game)


async def _cheat(pair: Pair, attack: str) -> tuple[Report, PeerAborted]:
    """The host plays honestly; the joiner follows the protocol by hand until it mounts ``attack``."""
    host = Duel(
        pair.host_channel, pair.host_session, pair.host.me, SlowBot("easy"), pair.host.home.records, 5
    )
    hosting = asyncio.create_task(host.run())
    channel, session, key = pair.join_channel, pair.join_session, pair.joiner.me.key
    match = Match(session.session_id, session.keys, session.terms.rules, session.terms.games)

    async def send(link: Signed) -> None:
        match.apply(link, 1)
        await channel.send(link)

    async def receive() -> Signed:
        link = await channel.recv(5)
        assert isinstance(link, Signed)
        match.apply(link, 0)
        return link

    async def mount(link: Signed) -> PeerAborted:
        await channel.send(link)
        with pytest.raises(PeerAborted) as aborted:
            await channel.recv(5)
        return aborted.value

    try:
        aborted = await _play_until(attack, match, key, send, receive, mount)
    finally:
        report = await hosting
        await pair.host_channel.close()
        await channel.close()
    return report, aborted


async def _play_until(
    attack: str,
    match: Match,
    key: Ed25519PrivateKey,
    send: Callable[[Signed], Awaitable[None]],
    receive: Callable[[], Awaitable[Signed]],
    mount: Callable[[Signed], Awaitable[PeerAborted]],
) -> PeerAborted:
    host_commit = await receive()  # player 0 opens game 1
    assert isinstance(host_commit, Commit)
    if attack == "copied commitment":
        return await mount(match.sign(key, Commit(game=1, commitment=host_commit.commitment, sig=b"")))
    pledge = Pledge("HS", bytes(range(32)))
    await send(match.sign(key, Commit(game=1, commitment=pledge.commitment(match.session_id, 1, 1), sig=b"")))
    await receive()  # the host's reveal
    if attack == "wrong reveal":
        return await mount(match.sign(key, Reveal(game=1, pref=pledge.pref, secret=bytes(32), sig=b"")))
    await send(match.sign(key, Reveal(game=1, pref=pledge.pref, secret=pledge.secret, sig=b"")))
    assert match.game is not None
    position = match.game.position
    if position.turn == 0 and attack != "out of turn":
        await receive()
        position = match.game.position
    if position.turn == 1 and attack == "out of turn":  # move honestly, then again while the host thinks
        move = position.legal_moves()[0]
        after = position.play(move)
        await send(match.sign(key, MoveMsg(game=1, n=1, move=str(move), hash=position_hash(after), sig=b"")))
        position = match.game.position
    move = position.legal_moves()[0]
    n = len(match.game.moves) + 1
    link = MoveMsg(game=1, n=n, move=str(move), hash=position_hash(position.play(move)), sig=b"")
    if attack == "illegal move":
        stolen = cards_of(position.hand_sets[0])[0]  # a card the host holds
        link = MoveMsg(game=1, n=n, move=str(Move(stolen)), hash=bytes(32), sig=b"")
    elif attack == "wrong position hash":
        link = MoveMsg(game=1, n=n, move=str(move), hash=bytes(32), sig=b"")
    signer = Ed25519PrivateKey.generate() if attack == "bad signature" else key
    return await mount(match.sign(signer, link))


@pytest.mark.parametrize(
    ("attack", "error"),
    [
        ("copied commitment", CopiedCommitment),
        ("wrong reveal", RevealMismatch),
        ("illegal move", IllegalMove),
        ("wrong position hash", PositionHashMismatch),
        ("bad signature", BadSignature),
        ("out of turn", OutOfTurn),
    ],
)
def test_cheats_end_the_match_with_evidence(tmp_path: Path, attack: str, error: type[CheatError]) -> None:
    async def scenario() -> tuple[Report, PeerAborted]:
        pair = await memory_pair(Side.make(tmp_path, "ann"), Side.make(tmp_path, "mallory"))
        return await _cheat(pair, attack)

    report, aborted = run(scenario())
    assert report.end == "cheat"
    assert type(report.error) is error
    assert aborted.reason == "cheat"
    verified = verify(report.record.read_text())
    assert not verified.complete
    assert verified.end is not None and verified.end["end"] == "cheat"
    if error is BadSignature:  # a bad signature proves nothing about its alleged sender
        assert verified.evidence_error is None
    else:
        assert type(verified.evidence_error) is error  # the kept evidence proves it on its own


def test_forged_evidence_in_the_savers_note_proves_nothing(tmp_path: Path) -> None:
    """The saver writes an unsigned out-of-turn move "by" its peer into its own end note:
    verify shows the note but does not say the evidence proves a cheat."""
    report, _ = run(bot_duel(tmp_path, games=1, bind=None))
    lines = report.record.read_text().splitlines()
    cut = next(
        i for i, line in enumerate(lines[1:], 1) if json.loads(line).get("link", {}).get("t") == "move"
    )
    due = json.loads(lines[cut])
    link = due["link"]
    forged = {"by": 1 - due["by"], **link, "move": "take", "hash": "00" * 32, "sig": "00" * 64}
    note = {"end": "cheat", "detail": "moved out of turn", "by": 1 - due["by"], "evidence": forged}
    verified = verify("\n".join([*lines[:cut], json.dumps(note)]) + "\n")
    assert verified.end is not None and verified.end["end"] == "cheat"
    assert verified.evidence_error is None
    summary = verified.summary()
    assert "the kept evidence proves nothing: it does not carry player" in summary
    assert "the kept evidence proves:" not in summary
    # a real link of the record, attributed to the other player: its signature is not theirs
    note["evidence"] = {**link, "by": 1 - due["by"]}
    assert verify("\n".join([*lines[:cut], json.dumps(note)]) + "\n").evidence_error is None


async def _send_two_chats(tmp_path: Path, meddle: Meddler) -> Report:
    pair = await memory_pair(Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob"), meddle=meddle)
    host = Duel(
        pair.host_channel, pair.host_session, pair.host.me, BotPlayer("easy"), pair.host.home.records, 5
    )
    hosting = asyncio.create_task(host.run())
    await pair.join_channel.send(Chat(text="one"))
    await pair.join_channel.send(Chat(text="two"))
    report = await hosting
    await pair.join_channel.close()
    await pair.host_channel.close()
    return report


def _flip(frame: bytes) -> bytes:
    return frame[:-5] + bytes([frame[-5] ^ 0x10]) + frame[-4:]


HELD: list[bytes] = []


def _swap_first_two(index: int, frame: bytes) -> list[bytes]:
    if index == 0:
        HELD.append(frame)
        return []
    return [frame, *HELD] if index == 1 else [frame]


@pytest.mark.parametrize(
    ("meddle", "error"),
    [
        (lambda i, f: [f, f] if i == 0 else [f], ReplayedFrame),
        (_swap_first_two, ReorderedFrame),
        (lambda i, f: [_flip(f)] if i == 0 else [f], TamperedFrame),
        (
            lambda i, f: [f[:12] + bytes([f[12] ^ 1]) + f[13:]] if i == 0 else [f],
            TamperedFrame,
        ),  # in the counter
    ],
    ids=["replayed", "reordered", "flipped-ciphertext", "flipped-counter"],
)
def test_frames_altered_in_transit_are_refused(tmp_path: Path, meddle: Meddler, error: type[P2PError]) -> None:
    HELD.clear()
    report = run(_send_two_chats(tmp_path, meddle))
    assert report.end == "corrupted"
    assert type(report.error) is error


def test_a_bit_flipped_mid_game_stops_both_sides(tmp_path: Path) -> None:
    host_report, join_report = run(
        bot_duel(tmp_path, games=1, bind=None, meddle=lambda i, f: [_flip(f)] if i == 3 else [f])
    )
    assert host_report.end == "corrupted" and type(host_report.error) is TamperedFrame
    assert join_report.end in ("abandoned", "aborted")
    assert not verify(host_report.record.read_text()).complete


