"""``trumps peers``: the peers you have played over the network, and forgetting one."""

from __future__ import annotations

import argparse
import sys

HELP = "list the peers you have played over the network, or forget one ('trumps peers forget NAME')"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps peers``."""
    parser.add_argument("action", nargs="?", choices=("list", "forget"), default="list")
    parser.add_argument("name", nargs="?", help="the peer to forget")


def run(args: argparse.Namespace) -> int:
    """List or forget; the exit status."""
    from p2p.crypto import fingerprint
    from p2p.errors import P2PError
    from p2p.home import Home
    from p2p.identity import KnownPeers, load_identity

    home = Home.default()
    known = KnownPeers(home)
    try:
        if args.action == "forget":
            if not args.name:
                print("trumps peers: say which peer to forget: trumps peers forget NAME", file=sys.stderr)
                return 2
            if not known.forget(args.name):
                print(f"trumps peers: no peer called {args.name!r} is remembered", file=sys.stderr)
                return 1
            print(f"forgot {args.name}; their next key will be trusted on first use")
            return 0
        peers = known.load()
        print(f"your fingerprint: {load_identity(home).fingerprint}")
    except P2PError as exc:
        print(f"trumps peers: {exc}", file=sys.stderr)
        return 1
    if not peers:
        print("no known peers yet")
    for name, info in sorted(peers.items()):
        key = bytes.fromhex(info["key"])
        print(
            f"{name}  {fingerprint(key)}  first seen {info.get('first_seen', '?')}, last {info.get('last_seen', '?')}"
        )
    return 0
