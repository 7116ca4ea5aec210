"""``trumps host`` with a person at the keyboard (the LAN joiner's question answered on stdin)
whose match a bot plays: how tests/test_netlab.py lets a LAN joiner in without a full screen.
Ctrl-C (SIGINT) raises KeyboardInterrupt as in a terminal, even when the test runner ignores it."""

from __future__ import annotations

import argparse
import signal
import sys

from cli.net.arguments import add_host_arguments
from cli.net.hosting import run_host
from cli.net.progress import Progress
from cli.net.running import bot_play


def main(argv: list[str]) -> int:
    """Parse ``trumps host`` options (``--bot`` left out: the person is asked) and host."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    parser = argparse.ArgumentParser(prog="trumps host")
    add_host_arguments(parser)
    args = parser.parse_args(argv)
    play = bot_play(argparse.Namespace(bot="easy", trump=args.trump, timeout=args.timeout), Progress())
    return run_host(args, play)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
