"""``trumps peers``: the peers you have played over the network, and forgetting one."""

from __future__ import annotations

import argparse
import sys

from cli.i18n import N_, _, translated
from cli.printable import printable

HELP = N_("list the peers you have played over the network, or forget one ('trumps peers forget NAME')")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps peers``."""
    parser.add_argument("action", nargs="?", choices=("list", "forget"), default="list")
    parser.add_argument("name", nargs="?", help=_("the peer to forget"))


def run(args: argparse.Namespace) -> int:
    """List or forget; the exit status."""
    from cli.home import Home
    from p2p.crypto import fingerprint
    from p2p.errors import P2PError
    from p2p.identity import KnownPeers, load_identity

    home = Home.default()
    known = KnownPeers(home.peers_file)
    try:
        if args.action == "forget":
            if not args.name:
                print(
                    f"trumps peers: {_('say which peer to forget: trumps peers forget NAME')}",
                    file=sys.stderr,
                )
                return 2
            if not known.forget(args.name):
                message = _("no peer called {name!r} is remembered").format(name=args.name)
                print(f"trumps peers: {message}", file=sys.stderr)
                return 1
            print(_("forgot {name}; their next key will be trusted on first use").format(name=args.name))
            return 0
        peers = known.load()
        print(
            _("your fingerprint: {fingerprint}").format(
                fingerprint=load_identity(home.identity_file).fingerprint
            )
        )
    except P2PError as exc:  # it may quote the file's names: shown, never obeyed
        print(printable(f"trumps peers: {translated(exc)}"), file=sys.stderr)
        return 1
    if not peers:
        print(_("no known peers yet"))
    for name, info in sorted(peers.items()):
        key = bytes.fromhex(info["key"])
        line = _("{name}  {fingerprint}  first seen {first}, last {last}")
        first, last = info.get("first_seen", "?"), info.get("last_seen", "?")
        print(printable(line.format(name=name, fingerprint=fingerprint(key), first=first, last=last)))
    return 0
