"""``trumps verify RECORD``: check a network match record from the file alone."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cli.i18n import N_, _, translated
from cli.printable import printable

if TYPE_CHECKING:
    from p2p.handshake import Session
    from p2p.record import Verified

HELP = N_("check a network match record: re-derive every deal, replay every move, check every signature")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps verify``."""
    parser.add_argument("record", help=_("a match record (the path 'trumps host' or 'trumps join' printed)"))
    parser.add_argument(
        "other",
        nargs="?",
        help=_("the other player's record of the same match: both are checked, and their awards compared"),
    )


def run(args: argparse.Namespace) -> int:
    """0 for a complete, valid record; 1 for a valid but incomplete one; 2 when it fails. With
    the other player's record too: both checked, then compared; 1 also when they dispute a game."""
    from p2p.books import NotOneMatch, compare_books

    status = 0
    checked = []
    for file in [args.record] + ([args.other] if args.other else []):
        if args.other:
            print(printable(_("{file}:").format(file=file)))
        verified = _verified(file)
        if isinstance(verified, int):
            return verified
        for line in [*map(translated, verified.summary_lines()), *_whose_keys(verified.session)]:
            print(printable(line))  # names and the saver's note come from the file: shown, never obeyed
        status = max(status, 0 if verified.complete else 1)
        checked.append(verified)
    if len(checked) == 2:
        try:
            books = compare_books(*checked)
        except NotOneMatch as exc:
            return _failed(translated(exc))
        print(_("Both records together:"))
        for line in books.lines:
            print(printable(translated(line)))
        status = max(status, 1 if books.disputed else 0)
    return status


def _verified(file: str) -> Verified | int:
    """The record ``file``, verified; or, when it fails, the exit status after saying why."""
    from p2p.errors import MatchRecordError
    from p2p.files import read_regular
    from p2p.record import MOST_RECORD_BYTES, verify

    try:  # only a regular file: a named pipe would keep it waiting, /dev/zero reading for ever
        data = read_regular(Path(file), MOST_RECORD_BYTES)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        error = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        return _failed(_("cannot read {file}: {error}").format(file=file, error=error))
    try:
        return verify(data.decode("utf-8"))
    except UnicodeDecodeError:
        return _failed(_("{file} is not a match record (not UTF-8 text)").format(file=file))
    except MatchRecordError as exc:
        return _failed(_("{file}: FAILED: {error}").format(file=file, error=translated(exc)))
    except Exception as exc:  # a damage no check foresaw: still a failed record, not a crash
        template = _("{file}: FAILED: the record is damaged in a way this program cannot read ({error})")
        return _failed(template.format(file=file, error=repr(exc)[:200]))


def _failed(message: str) -> int:
    """Say why the record fails (its words made harmless: they may come from the file); exit status 2."""
    print(printable(f"trumps verify: {message}"), file=sys.stderr)
    return 2


def _whose_keys(session: Session) -> list[str]:
    """How each player's key compares with this machine's identity and known peers (a new name
    that looks like a known one with another key warned of, as the handshake refuses it)."""
    from cli.home import Home
    from p2p.errors import P2PError
    from p2p.identity import KnownPeers, load_identity

    home = Home.default()
    try:
        peers = KnownPeers(home.peers_file).peers()
        own = load_identity(home.identity_file).public if home.identity_file.exists() else None
    except (P2PError, OSError):  # no usable home: the fingerprints above are all there is
        return []
    lines = []
    for seat, (name, key) in enumerate(zip(session.names, session.keys, strict=True)):
        known, other = peers.keys.get(name), peers.look_alike(name, key)
        if key == own:
            template = _("player {seat} ({name}): your own key")
        elif known is None and other is not None:
            template = _(
                "player {seat} ({name}): looks like {known} of your known peers, but {known}'s key "
                "is ANOTHER one: this may be someone pretending to be {known}"
            )
        elif known is None:
            template = _("player {seat} ({name}): not in your known peers")
        elif known == key:
            template = _("player {seat} ({name}): the key your known peers hold for {name}")
        else:
            template = _("player {seat} ({name}): your known peers hold ANOTHER key for {name}")
        lines.append(template.format(seat=seat, name=name, known=other))
    return lines
