"""The program itself run as processes for the end-to-end tests: a bot host and a bot joiner
over loopback, each in a home of its own, and what each printed when it ended."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from p2p.invite import Invite

TRUMPS = [sys.executable, "-m", "cli"]
"""The command that runs this checkout's program."""
PROGRAM_LIMIT = 40.0
"""Seconds a program may take to print its invite, or to end once its part is played."""


def program_env(home: Path) -> dict[str, str]:
    """The environment of a program whose home is ``home`` (its XDG folders ``home``/config and /data)."""
    return os.environ | {"XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data")}


async def host_program(root: Path, *options: str) -> tuple[asyncio.subprocess.Process, Invite]:
    """``trumps host --bot easy --json`` as ann (home ``root``/ann) on loopback, and its invite."""
    host = await asyncio.create_subprocess_exec(
        *TRUMPS, "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "easy", "--json", "--name", "ann",
        *options, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=program_env(root / "ann"),
    )  # fmt: skip
    assert host.stdout is not None
    line = (await asyncio.wait_for(host.stdout.readline(), PROGRAM_LIMIT)).decode()
    return host, Invite.parse(line.split("trumps join ", 1)[1])


async def join_program(root: Path, invite: Invite, *options: str) -> asyncio.subprocess.Process:
    """``trumps join INVITE --bot easy --json`` as bob (home ``root``/bob)."""
    return await asyncio.create_subprocess_exec(
        *TRUMPS, "join", str(invite), "--bot", "easy", "--json", "--name", "bob", *options,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=program_env(root / "bob"),
    )  # fmt: skip


async def outcome(process: asyncio.subprocess.Process) -> tuple[int, dict[str, object], str]:
    """How ``process`` ended: its exit status, its last line of JSON and its standard error."""
    out, err = await asyncio.wait_for(process.communicate(), PROGRAM_LIMIT)
    lines = out.decode().splitlines()
    return process.returncode or 0, json.loads(lines[-1]), err.decode()
