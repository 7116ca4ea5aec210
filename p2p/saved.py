"""What a restarted program needs to continue an unfinished match, kept on disk while it lasts.

The signed chain is in the record (:mod:`p2p.record`); what it cannot hold is kept in a small
JSON file beside it (mode 0600, written atomically, deleted when the match ends):

``{"saved": "your-trumps unfinished match", "format": 1, "record": path, "pledges": {game:
{"pref", "secret"}}, "invite": text-or-null, "lan": bool, "joiner": address-or-null}``

- ``pledges``: this side's own commitment secrets for games not yet revealed, written *before*
  the commitment goes out, so that a program restarted between its commit and its reveal can
  still reveal (docs/protocol.md, "Restarts");
- ``invite``: the host's invite (addresses, fingerprint, secret), so that a restarted host
  listens where the joiner redials and proves the same secret; for a joiner that found its
  host on the LAN, the LAN entry's (addresses and fingerprint, then ``/`` and no secret: the
  empty :data:`~p2p.handshake.LAN_SECRET`; its first :data:`~p2p.invite.MAX_ADDRESSES`
  addresses, as many as an invite holds), so that a restarted ``trumps join`` without an
  invite redials it (an invite line's joiner has ``null``: the same line finds its file);
- ``lan`` (the host's side; ``false`` when left out): its joiner came by the LAN knock, so a
  restarted host takes that joiner's LAN knock back (and only that joiner's);
- ``joiner`` (the host's side; ``null`` or left out when not known): the address its joiner
  plays from (the one of its last resume), whose source a restarted host reserves.

Everything read back is checked: a file that is not such a state, whose record is not a
regular file, not this player's (another key saved it) or of a match with another host than the
invite's, or whose pledge does not open the record's commitment, raises :class:`SavedMatchError`
and is left in place (nothing is lost). While a program plays the match of a state file it
holds it (:meth:`SavedMatch.hold`): a second program is refused it, so that two never continue
one match at once.
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO

from p2p.crypto import base32, fingerprint, tagged_hash
from p2p.errors import P2PError
from p2p.fairdeal import Pledge
from p2p.files import hold, let_go, read_regular, write_atomically
from p2p.handshake import LAN_SECRET
from p2p.identity import Identity
from p2p.invite import MAX_ADDRESSES, SECRET_BYTES, Invite
from p2p.messages import Commit, Reveal
from p2p.record import MOST_RECORD_BYTES, RecordWriter, Verified, verify
from p2p.text import N_, Text

SAVED_KIND = "your-trumps unfinished match"
FORMAT = 1


def hosted_file(directory: Path) -> Path:
    """Where the host keeps its unfinished match (one at a time: ``trumps host`` continues it)."""
    return directory / "hosted.json"


def joined_file(directory: Path, invite: Invite) -> Path:
    """Where a joiner keeps the unfinished match of ``invite``: found again by the same join
    line; for a LAN entry (no line finds it again: :func:`lan_joined` does), a name not taken,
    so that a new match with the same host leaves an earlier one kept beside it."""
    name = tagged_hash("saved-join", invite.fingerprint.encode(), invite.secret).hex()[:16]
    path, number = directory / f"joined-{name}.json", 1
    while invite.secret == LAN_SECRET and path.exists():
        number += 1
        path = directory / f"joined-{name}-{number}.json"
    return path


def lan_joined(directory: Path) -> list[SavedMatch]:
    """The unfinished matches joined from the LAN list (no invite line finds them again), the
    newest first. Only their state files are read: one that is not a readable state is passed
    over (it may be an invite line's, which that line reads again and says what is wrong with);
    their records are not (:func:`restore` reads one and says what is wrong with it)."""
    found = []
    for path in directory.glob("joined-*.json"):
        try:
            saved, when = load_saved(path), path.stat().st_mtime
        except (SavedMatchError, OSError):
            continue
        if saved.invite is not None and saved.invite.secret == LAN_SECRET:
            found.append((when, saved))
    return [saved for _, saved in sorted(found, key=lambda item: item[0], reverse=True)]


class SavedMatchError(P2PError):
    """A saved unfinished match that cannot be read or does not fit its record."""


@dataclass
class SavedMatch:
    """One side's unfinished match: where its record is and what the record cannot hold."""

    path: Path
    """This state file."""
    record: Path | None = None
    """The match record (set once the duel names it)."""
    invite: Invite | None = None
    """The host's invite; for a joiner, the LAN entry it found its host by (its secret
    :data:`~p2p.handshake.LAN_SECRET`), else ``None``."""
    pledges: dict[int, Pledge] = field(default_factory=dict)
    lan: bool = False
    """The host's side: its joiner came by the LAN knock (and so comes back by it)."""
    joiner: str | None = None
    """The host's side: the address its joiner plays from (since its last resume), whose source
    a restarted host reserves (docs/operations.md, "Admission": reserved slot), so that a returning LAN joiner,
    which proves no secret, is not pushed out by strangers' knocks."""
    _held: BinaryIO | None = field(default=None, repr=False, compare=False)
    """The lock on this state file while this program plays its match (:meth:`hold`)."""

    def hold(self) -> bool:
        """Hold this state file for this program (a lock beside it, ``NAME.lock``, which the
        system drops when the program ends however it ends); ``False`` when another program
        holds it. A folder that cannot be written holds nothing and says ``True``: no state
        can be written there for another program to spoil."""
        if self._held is None:
            try:
                self._held = hold(self._lock_path)
            except OSError:
                return True
            return self._held is not None
        return True

    def release(self) -> None:
        """Let another program have this state file (this one will not play its match, or is
        done); the lock file goes too once no match is kept here (:func:`~p2p.files.let_go`)."""
        if self._held is not None:
            if self.path.exists():
                self._held.close()
            else:
                let_go(self._held, self._lock_path)
            self._held = None

    @property
    def _lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def keep(self, game: int, pledge: Pledge) -> None:
        """Save our pledge for ``game`` (before its commitment is sent)."""
        self.pledges[game] = pledge
        self.write()

    def write(self) -> None:
        """Replace the file on disk, atomically and readable only by this user."""
        state = {
            "saved": SAVED_KIND,
            "format": FORMAT,
            "record": None if self.record is None else str(self.record),
            "pledges": {str(n): {"pref": p.pref, "secret": p.secret.hex()} for n, p in self.pledges.items()},
            "invite": None if self.invite is None else _saved_text(self.invite),
            "lan": self.lan,
            "joiner": self.joiner,
        }
        write_atomically(self.path, json.dumps(state).encode(), mode=0o600)

    def joiner_at(self, address: str) -> bool:
        """The host's joiner plays from ``address`` (a channel's ``peer_host``): kept if it is an IP
        address (an unknown one, ``?``, is not) and new; whether it was."""
        if address == self.joiner or not _is_address(address):
            return False
        self.joiner = address
        return True

    def joiner_back_from(self, address: str) -> None:
        """The host's joiner resumed from ``address``: a new one is kept (on disk at once), so that
        a host restarted now reserves the source its joiner plays from, not the one it began from."""
        if self.joiner_at(address):
            self.write()

    def discard(self) -> None:
        """The match ended: nothing is left to continue."""
        self.path.unlink(missing_ok=True)

    def close(self, restored: Verified, note: dict[str, object]) -> None:
        """End the unfinished match ``restored`` (read back from :attr:`record`) with ``note``
        without playing on (:func:`~p2p.match_end.late_return_end`), and discard this state:
        it is not offered again. This file stays held, for a new match of this program."""
        assert self.record is not None
        writer = RecordWriter.continuing(self.record, restored.session, restored.match)
        writer.save(restored.match, note)
        self.discard()
        self.record, self.pledges = None, {}

    def for_rematch(self) -> SavedMatch:
        """The state of a rematch on the same connection, in the same file: the same invite and
        way in, no record yet and no pledges (its duel writes it before its first link)."""
        return SavedMatch(self.path, invite=self.invite, lan=self.lan, joiner=self.joiner, _held=self._held)


def load_saved(path: Path) -> SavedMatch:
    """The state saved in ``path``; :class:`SavedMatchError` says what is wrong with it."""
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _corrupt(path, Text(N_("not readable JSON ({error})"), error=exc)) from None
    if not isinstance(state, dict) or state.get("saved") != SAVED_KIND or state.get("format") != FORMAT:
        raise _corrupt(path, Text(N_("not an unfinished match of this version")))
    record, invite, pledges = state.get("record"), state.get("invite"), state.get("pledges")
    if not isinstance(record, str) or not isinstance(pledges, dict):
        raise _corrupt(path, Text(N_("the record or the pledges are missing")))
    lan = state.get("lan", False)
    if not isinstance(lan, bool):
        raise _corrupt(path, Text(N_('its "lan" field is {value}, neither true nor false'), value=repr(lan)[:40]))
    joiner = state.get("joiner")
    if joiner is not None and not _is_address(joiner):
        raise _corrupt(path, Text(N_('its "joiner" field is {value}, not an address'), value=repr(joiner)[:40]))
    saved = SavedMatch(path, Path(record), lan=lan, joiner=joiner)
    try:
        saved.invite = None if invite is None else _invite(str(invite))
        for number, pledge in pledges.items():
            secret = bytes.fromhex(pledge["secret"])
            if not number.isdigit() or len(secret) != 32 or not isinstance(pledge["pref"], str):
                raise ValueError(number)
            saved.pledges[int(number)] = Pledge(pledge["pref"], secret)
    except (P2PError, ValueError, TypeError, KeyError) as exc:
        raise _corrupt(path, Text(N_("an unreadable invite or pledge ({error})"), error=exc)) from None
    return saved


def _is_address(value: object) -> bool:
    """Whether ``value`` is an IP address written as text."""
    try:
        ipaddress.ip_address(value if isinstance(value, str) else "")
    except ValueError:
        return False
    return True


def _saved_text(invite: Invite) -> str:
    """``invite`` as saved: a LAN entry announces as many addresses as its host has, an invite
    holds :data:`~p2p.invite.MAX_ADDRESSES` at most (the first, tried first, are kept)."""
    return str(replace(invite, addresses=invite.addresses[:MAX_ADDRESSES]))


def _invite(text: str) -> Invite:
    """An invite as saved: a LAN entry's text ends in ``/`` (the empty secret, which no invite
    line has); the rest is checked as any invite is."""
    if not text.endswith("/"):
        return Invite.parse(text)
    return replace(Invite.parse(text + base32(bytes(SECRET_BYTES))), secret=LAN_SECRET)


def restore(saved: SavedMatch, me: Identity, invite: Invite | None = None) -> Verified:
    """The unfinished match of ``saved``, replayed from its record and checked against the pledges:
    a record that ``me`` saved, of a match whose host is ``invite``'s (the saved one's when
    ``None``)."""
    assert saved.record is not None
    try:  # ValueError: a record not in UTF-8, or a path with a NUL or a lone surrogate
        verified = verify(read_regular(saved.record, MOST_RECORD_BYTES).decode("utf-8"))
    except (OSError, ValueError, P2PError) as exc:
        raise _corrupt(
            saved.path, Text(N_("its record {record}: {error}"), record=saved.record, error=exc)
        ) from None
    match, seat = verified.match, verified.session.seat
    invite = invite or saved.invite
    if verified.session.keys[seat] != me.public:
        template = N_("its record {record} was saved by another player (another identity key)")
        raise _corrupt(saved.path, Text(template, record=saved.record))
    if invite is not None and fingerprint(verified.session.offer.key) != invite.fingerprint:
        template = N_("its record {record} is of a match with another host than its invite's")
        raise _corrupt(saved.path, Text(template, record=saved.record))
    if verified.complete or verified.end is not None:
        raise _corrupt(saved.path, Text(N_("its record {record} already ended"), record=saved.record))
    for by, link in match.links:
        if not isinstance(link, Commit) or by != seat or (pledge := saved.pledges.get(link.game)) is None:
            continue
        if pledge.commitment(match.session_id, link.game, seat) != link.commitment:
            template = N_("the saved pledge of game {game} does not open the record's commitment")
            raise _corrupt(saved.path, Text(template, game=link.game))
    if match.due() == (Reveal, seat) and match.number not in saved.pledges:
        template = N_("the pledge of game {game}, needed for the reveal, is missing")
        raise _corrupt(saved.path, Text(template, game=match.number))
    return verified


def _corrupt(path: Path, why: Text) -> SavedMatchError:
    template = N_("the unfinished match in {path} cannot be continued: {why} (the file is left as it is)")
    return SavedMatchError(Text(template, path=path, why=why))
