"""``trumps verify RECORD``: check a network match record from the file alone."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "check a network match record: re-derive every deal, replay every move, check every signature"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps verify``."""
    parser.add_argument("record", help="a match record (the path 'trumps host' or 'trumps join' printed)")


def run(args: argparse.Namespace) -> int:
    """0 for a complete, valid record; 1 for a valid but incomplete one; 2 when it fails."""
    from p2p.errors import RecordError
    from p2p.record import verify

    try:
        data = Path(args.record).read_bytes()
    except OSError as exc:
        print(f"trumps verify: cannot read {args.record}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        verified = verify(data.decode("utf-8"))
    except UnicodeDecodeError:
        print(f"trumps verify: {args.record} is not a match record (not UTF-8 text)", file=sys.stderr)
        return 2
    except RecordError as exc:
        print(f"trumps verify: {args.record}: FAILED: {exc}", file=sys.stderr)
        return 2
    print(verified.summary())
    return 0 if verified.complete else 1
