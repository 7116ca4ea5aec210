"""Forged proofs of cheating: a saver who edits its own record cannot make ``trumps verify`` endorse
evidence against its peer; evidence proves a violation only when its alleged sender's signature is
valid, bound to this match's root, and the record's own signed links at that point contradict it;
and the record those matches write keeps no torn line when an append fails.

The matches here are played in memory by one :class:`Match` holding both players' keys (no
sockets, no clocks): exactly the chain two honest peers would sign.
"""

from __future__ import annotations

import errno
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine import Position, Rules
from p2p.crypto import tagged_hash
from p2p.errors import (
    HistoryMismatch,
    MatchRecordError,
    ProtocolViolation,
)
from p2p.fairdeal import Pledge, coin, game_seed
from p2p.handshake import Session, Terms
from p2p.match import Match, final_digest, position_hash, rematch_of, rematch_root, sign_resume
from p2p.messages import (
    Commit,
    Final,
    MoveMsg,
    Reveal,
    Signed,
    to_json,
)
from p2p.record import RecordWriter, verify
from p2p.wire import encode
from tests.support.handshakes import session_pair
from tests.support.peers import RecordRow, Side


def play(
    session: Session,
    keys: tuple[Ed25519PrivateKey, ...],
    folder: Path,
    previous: Match | None = None,
    links: int | None = None,
) -> Path:
    """An honest match of ``session`` (a rematch of ``previous`` if given), recorded in ``folder``:
    whole, or its first ``links`` links."""
    terms = session.terms
    if previous is None:
        match = Match(session.session_id, session.keys, terms.rules, terms.games)
    else:
        root, dealer = rematch_of(previous, session.session_id)
        match = Match(root, session.keys, terms.rules, terms.games, dealer)
    writer = RecordWriter(folder, session, match, previous)
    pledges: dict[int, Pledge] = {}
    while (due := match.due()) is not None and len(match.links) != links:
        kind, seat = due
        unsigned: Signed
        if kind is Commit:
            pledges[seat] = Pledge.fresh("SH" if seat else "HS")
            commitment = pledges[seat].commitment(match.session_id, match.number, seat)
            unsigned = Commit(game=match.number, commitment=commitment, sig=b"")
        elif kind is Reveal:
            pledge = pledges[seat]
            unsigned = Reveal(game=match.number, pref=pledge.pref, secret=pledge.secret, sig=b"")
        elif kind is MoveMsg:
            assert match.game is not None
            position = match.game.position
            move = position.legal_moves()[0]
            after = position_hash(position.play(move))
            unsigned = MoveMsg(
                game=match.number, n=len(match.game.moves) + 1, move=str(move), hash=after, sig=b""
            )
        else:
            unsigned = Final(transcript=match.transcript, sig=b"")
        match.apply(match.sign(keys[seat], unsigned), seat)
        writer.append(match)
    writer.close()
    played[writer.path] = match
    return writer.path


played: dict[Path, Match] = {}
"""The match behind each record :func:`play` wrote."""


@dataclass
class Duelists:
    """ann (host, player 0) and bob (player 1), with two sessions between the same two keys."""

    ann: Side
    bob: Side
    first: Session
    """ann and bob, the rules of ``Terms(Rules(), 2)``."""
    other: Session
    """The same keys under other names ("anna", "robert") and another move cap."""

    @property
    def keys(self) -> tuple[Ed25519PrivateKey, Ed25519PrivateKey]:
        return self.ann.me.key, self.bob.me.key


def handshake_session(host: Side, joiner: Side, terms: Terms) -> Session:
    """The host's session of a handshake between two homes, each remembering the other (the
    machines' exchange in memory: no socket)."""
    return session_pair(host.me, joiner.me, terms, (host.name, joiner.name), (host.known, joiner.known)).host


@pytest.fixture(scope="module")
def duelists(tmp_path_factory: pytest.TempPathFactory) -> Duelists:
    root = tmp_path_factory.mktemp("keys")
    ann, bob = Side.make(root, "ann"), Side.make(root, "bob")
    first = handshake_session(ann, bob, Terms(Rules(), 2))
    anna, robert = Side(ann.home, ann.me, "anna"), Side(bob.home, bob.me, "robert")
    other = handshake_session(anna, robert, Terms(Rules(max_moves=999), 2))
    return Duelists(ann, bob, first, other)


@pytest.fixture(scope="module")
def record(duelists: Duelists, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return play(duelists.first, duelists.keys, tmp_path_factory.mktemp("first"))


def _rows(path: Path) -> list[RecordRow]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _text(rows: list[RecordRow]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


def _cut_before_bobs_move(rows: list[RecordRow]) -> int:
    """The index of a row holding a move of bob's right after a move of ann's, a dozen links in."""
    return next(
        i for i in range(12, len(rows)) if _link(rows[i], 1, "move") and _link(rows[i - 1], 0, "move")
    )


def _link(row: RecordRow, seat: int, kind: str) -> bool:
    link = row.get("link")
    return row.get("by") == seat and isinstance(link, dict) and link["t"] == kind


def _forged(rows: list[RecordRow], cut: int, evidence: dict[str, object]) -> str:
    """ann's record cut before row ``cut``, with a note awarding her the game on ``evidence`` "by" bob."""
    note = {"end": "cheat", "detail": "bob cheated", "by": 1, "game": 1, "winner": 0, "evidence": evidence}
    return _text([*rows[:cut], note])


def _proves_nothing(text: str) -> None:
    verified = verify(text)
    assert verified.evidence_error is None
    summary = verified.summary()
    assert "the kept evidence proves nothing" in summary
    assert "the kept evidence proves:" not in summary
    assert not verified.complete


def _final_of(path: Path, seat: int) -> dict[str, object]:
    row = next(row for row in _rows(path) if row.get("by") == seat and row["link"]["t"] == "final")
    return {"by": seat, **row["link"]}


# ------------------------------------------------------------ the four forgeries of issue 11


def test_a_resume_message_with_random_signature_bytes_proves_nothing(record: Path) -> None:
    rows = _rows(record)
    cut = _cut_before_bobs_move(rows)
    match = played[record]
    claim = {"by": 1, "t": "resume", "root": match.session_id.hex(), "links": cut - 1,
             "transcript": os.urandom(32).hex(), "sig": os.urandom(64).hex()}  # fmt: skip
    _proves_nothing(_forged(rows, cut, claim))


def test_bobs_genuine_final_of_the_same_match_proves_nothing(record: Path) -> None:
    rows = _rows(record)
    _proves_nothing(_forged(rows, _cut_before_bobs_move(rows), _final_of(record, 1)))


def test_bobs_final_from_another_match_proves_nothing(
    record: Path, duelists: Duelists, tmp_path: Path
) -> None:
    another = play(duelists.first, duelists.keys, tmp_path)
    rows = _rows(record)
    _proves_nothing(_forged(rows, _cut_before_bobs_move(rows), _final_of(another, 1)))


def test_bobs_honest_resume_claim_from_an_earlier_reconnection_proves_nothing(
    record: Path, duelists: Duelists
) -> None:
    """bob came back after link ``n`` with a true claim; later he sent more links. ann cuts her
    record after them and presents the old claim as "he came back holding fewer than he sent"."""
    rows = _rows(record)
    cut = _cut_before_bobs_move(rows)
    match = played[record]
    earlier = cut - 10
    honest = sign_resume(duelists.bob.me.key, match.session_id, earlier, match.transcript_at(earlier))
    assert any(row["by"] == 1 for row in rows[earlier + 1 : cut])  # bob sent links after the claim
    _proves_nothing(_forged(rows, cut, {"by": 1, **to_json(honest)}))


# ---------------------------------------------------------------- what evidence still proves


def _at_cut(rows: list[RecordRow], cut: int) -> Match:
    return verify(_text(rows[:cut])).match


def test_a_final_bob_signed_where_his_move_was_due_proves_it(record: Path, duelists: Duelists) -> None:
    rows = _rows(record)
    cut = _cut_before_bobs_move(rows)
    match = _at_cut(rows, cut)
    early = match.sign(duelists.bob.me.key, Final(transcript=match.transcript, sig=b""))
    verified = verify(_forged(rows, cut, {"by": 1, **to_json(early)}))
    assert isinstance(verified.evidence_error, ProtocolViolation)
    assert "sent a 'final' where a 'move' was due" in verified.summary()


def test_a_resume_claim_contradicting_bobs_own_signed_links_proves_it(
    record: Path, duelists: Duelists
) -> None:
    rows = _rows(record)
    cut = _cut_before_bobs_move(rows)
    last_of_bob = max(i for i in range(1, cut) if rows[i]["by"] == 1)  # bob signed the history up to it
    root = played[record].session_id
    lie = sign_resume(duelists.bob.me.key, root, last_of_bob, os.urandom(32))
    verified = verify(_forged(rows, cut, {"by": 1, **to_json(lie)}))
    assert isinstance(verified.evidence_error, HistoryMismatch)
    assert "the kept evidence proves:" in verified.summary()


def test_a_resume_claim_that_only_ann_could_contradict_proves_nothing(
    record: Path, duelists: Duelists
) -> None:
    """Another transcript after a link of ann's, the last: ann may have shown bob another link there."""
    rows = _rows(record)
    cut = _cut_before_bobs_move(rows)  # rows[cut - 1] is a move of ann's
    root = played[record].session_id
    claim = sign_resume(duelists.bob.me.key, root, cut - 1, os.urandom(32))
    _proves_nothing(_forged(rows, cut, {"by": 1, **to_json(claim)}))


def test_a_resume_claim_about_another_match_proves_nothing(record: Path, duelists: Duelists) -> None:
    rows = _rows(record)
    cut = _cut_before_bobs_move(rows)
    claim = sign_resume(duelists.bob.me.key, os.urandom(32), 2, os.urandom(32))
    _proves_nothing(_forged(rows, cut, {"by": 1, **to_json(claim)}))


def test_judging_evidence_leaves_the_verified_prefix_as_it_is(record: Path) -> None:
    """bob's genuine next move as "evidence": no violation, and not counted as part of the record."""
    rows = _rows(record)
    cut = _cut_before_bobs_move(rows)
    verified = verify(_forged(rows, cut, {"by": 1, **rows[cut]["link"]}))
    assert verified.evidence_error is None and len(verified.match.links) == cut - 1
    assert "the kept evidence proves nothing" in verified.summary()


# ----------------------------------------------------------------- rematches (issue 11, flaw 6)


def test_a_rematch_record_under_another_sessions_header_fails(duelists: Duelists, tmp_path: Path) -> None:
    """The same two keys played a match and a rematch as "anna" and "robert" with a move cap of 999;
    that rematch record under the header of the ann-and-bob session must not verify."""
    first = play(duelists.other, duelists.keys, tmp_path)
    rematch = play(duelists.other, duelists.keys, tmp_path, previous=played[first])
    assert verify(rematch.read_text()).complete
    header, *links = _rows(rematch)
    header |= {key: to_json(getattr(duelists.first, key)) for key in ("hello", "offer", "accept")}
    with pytest.raises(MatchRecordError, match=r"line 2: .*bad signature"):
        verify(_text([header, *links]))


# ------------------------------------------------------------- the document's worked example


def test_the_worked_example_of_the_protocol_document_is_what_the_code_computes() -> None:
    """docs/protocol.md gives the bytes of a commitment, a link and every root-bound hash for an
    interoperating peer to check itself against: they must be this implementation's."""
    text = (Path(__file__).parent.parent / "docs" / "protocol.md").read_text(encoding="utf-8")
    block = text.split("Worked example", 1)[1].split("```")[1]
    entries: list[list[str]] = []
    for line in block.strip("\n").splitlines():  # an entry: a label line, then "= value" lines
        if line.startswith(" "):
            entries[-1].append(line)
        else:
            entries.append([line])
    shown = {entry[0].split("  =")[0].strip(): entry[-1].rsplit("= ", 1)[1] for entry in entries}
    root, secret0, secret1 = bytes(32), bytes(32), bytes([1]) * 32
    commitment = Pledge("SH", secret0).commitment(root, 1, 0)
    body = encode(Commit(game=1, commitment=commitment, sig=b"").body())
    computed = {
        "commitment": commitment.hex(),
        "enc(body)": body.hex(),
        "T₁": tagged_hash("link", root, body).hex(),
        "seed (secret₁ = 32 bytes 01)": game_seed(root, 1, (secret0, secret1)).hex(),
        "coin": str(coin(root, (secret0, secret1))),
        'H("final", root, root)': final_digest(root, root).hex(),
        'H("rematch", root, root, 01)': rematch_root(root, root, 1).hex(),
        'H("position", "6S7SAH/TDQD9C/7C8C SH 0")': position_hash(
            Position.from_notation("6S7SAH/TDQD9C/7C8C SH 0")
        ).hex(),
    }
    assert shown == computed


def test_player_1s_genuine_final_where_player_0s_is_due_proves_nothing(record: Path) -> None:
    """Flaw: ann (player 0) lost; she cuts her record after the last move, drops her own final and
    keeps bob's genuine final as "evidence". It is signed by bob and bound to this match where
    the record stops (``transcript = T_end``), and applying it there fails — "player 1 sent a
    'final' while player 0's was due" — so verify used to endorse it as proof of cheating. But
    finals are not links: bob's signature covers ``T_end``, not ann's final, so the record cannot
    show which final came first, and an honest bob signs exactly this message. Fixed in
    ``Match.violation``: a final over the current transcript while finals are due proves nothing."""
    rows = _rows(record)
    cut = next(i for i, row in enumerate(rows) if row.get("by") == 0 and row["link"]["t"] == "final")
    _proves_nothing(_forged(rows, cut, _final_of(record, 1)))


def test_a_failed_append_leaves_no_torn_line_in_the_record(
    duelists: Duelists, record: Path, tmp_path: Path
) -> None:
    """The disk fills up in the middle of appending a link: half a line reaches the file, then the
    write fails. Once there is room again the link is appended whole and the record verifies, with
    no torn line in the middle. Check: ``file.truncate(size)`` in ``RecordWriter.append``."""
    links, session = played[record].links, duelists.first
    match = Match(session.session_id, session.keys, session.terms.rules, session.terms.games)
    writer = RecordWriter(tmp_path, session, match)
    for by, link in links[:5]:
        match.apply(link, by)
        writer.append(match)
    real = writer._file
    assert real is not None

    class DiskFull:
        def __getattr__(self, name: str) -> object:
            return getattr(real, name)

        def write(self, data: bytes) -> int:
            assert real is not None
            real.write(data[: len(data) // 2])
            real.flush()
            raise OSError(errno.ENOSPC, "No space left on device")

    writer._file = DiskFull()  # type: ignore[assignment]  # a stand-in for the open file, not a BinaryIO
    match.apply(links[5][1], links[5][0])
    with pytest.raises(OSError):
        writer.append(match)
    writer._file = real
    for by, link in links[6:10]:
        match.apply(link, by)
    writer.append(match)
    writer.close()
    verified = verify(writer.path.read_text())
    assert len(verified.match.links) == 10 and not verified.truncated
