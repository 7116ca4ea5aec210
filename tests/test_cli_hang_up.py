"""A closed terminal pauses a restart-safe duel on the full screen, whichever the program hears
first: the end of its input (the app's ``EOFError``) or the hang-up signal (``PAUSE``).

Over memory, with prompt_toolkit's pipe input: closing the pipe is what a closed window does to
the app when its SIGHUP is still on its way (the race the tmux test of a closed terminal lost
under load, where the peer heard only a dropped line).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cli.app.duel_screen import play_duel
from p2p.channel import Channel
from p2p.duel import Duel, Report
from p2p.handshake import Session
from p2p.players import BotPlayer
from p2p.saved import SavedMatch
from tests.support.peers import Side, Unwatched, memory_pair, run


class Away(Unwatched):
    """The host's way back to a joiner who does not come back within the test."""

    async def reconnect(self) -> tuple[Channel, Session]:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


@pytest.mark.parametrize("stop", ["input ends", "hang-up", "input ends, then hang-up"])
def test_a_closed_terminal_pauses_the_duel_and_the_peer_hears_the_program_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop: str
) -> None:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from p2p.duel_machine import PAUSE

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "screen-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "screen-config"))
    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
    state = tmp_path / "bob-unfinished.json"
    statuses: list[str] = []

    async def scenario() -> tuple[BaseException | Report, bool]:
        pair = await memory_pair(ann, bob)
        host = Duel(pair.host_channel, pair.host_session, ann.me, BotPlayer("easy"), ann.home.records, 30,
                    reconnector=Away(), status=statuses.append)  # fmt: skip
        hosting = asyncio.create_task(host.run())
        with create_pipe_input() as pipe:
            joining = asyncio.create_task(
                play_duel(pair.join_channel, pair.join_session, bob.me, bob.home, None, SavedMatch(state),
                          input=pipe, output=DummyOutput())
            )  # fmt: skip
            while host.match.game is None:  # the trump question, then the deal
                pipe.send_text("c\r")
                await asyncio.sleep(0.05)
            if stop.startswith("input ends"):
                pipe.close()
                await asyncio.sleep(0)
            if stop.endswith("hang-up"):
                joining.cancel(PAUSE)  # what run_to_end's SIGHUP handler does
            ended = await asyncio.wait_for(asyncio.gather(joining, return_exceptions=True), 10)
        for _ in range(200):
            if any("program stopped" in line for line in statuses):
                break
            await asyncio.sleep(0.01)
        waiting = not hosting.done()
        hosting.cancel()
        await asyncio.gather(hosting, return_exceptions=True)
        return ended[0], waiting

    joiner_end, host_waits = run(scenario())
    assert isinstance(joiner_end, asyncio.CancelledError), joiner_end  # paused, as run_to_end reports it
    assert any("bob's program stopped" in line for line in statuses), statuses
    assert host_waits  # for the same command to continue the match
    assert state.exists()
