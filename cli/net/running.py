"""Playing a handshaken duel to its end from the command line, and saying how it went.

What :mod:`~cli.net.hosting` and :mod:`~cli.net.joining` share once they have a
connection: the player's name and identity (:func:`setup`), a headless bot's play
(:func:`bot_play`), the run under Ctrl-C, SIGTERM and SIGHUP (:func:`run_to_end`), and the
summary with the exit status (:func:`finish`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import TYPE_CHECKING, Any

from cli.app.trump_choice import names_second, trump_clash, trump_prefs
from cli.i18n import N_, translated
from cli.net.progress import Progress
from p2p.text import Text, ntext

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Coroutine
    from pathlib import Path

    from cli.home import Home
    from p2p.channel import Channel
    from p2p.duel import Report
    from p2p.duel_line import Reconnector
    from p2p.handshake import Session
    from p2p.identity import Identity
    from p2p.match import Match
    from p2p.record import Verified
    from p2p.saved import SavedMatch

    Play = Callable[
        [Channel, Session, Identity, Home, Reconnector, SavedMatch | None, Verified | None], Awaitable[Report]
    ]
    """Plays a handshaken duel to its end, getting the peer back through the
    :class:`~p2p.duel_line.Reconnector` after a drop, restart-safe with a :class:`~p2p.saved.SavedMatch`
    and continuing the unfinished match read back from it (the last argument, or ``None``):
    the interactive interface's entry point."""

STOPPED = 130
"""The exit status after Ctrl-C (the shell's 128 + SIGINT)."""


def fail(progress: Progress, command: str, error: Exception, as_json: bool, end: str = "refused") -> int:
    """Say why ``trumps command`` stops (and the ``--json`` line); the exit status, 1."""
    progress.say(f"trumps {command}: {translated(error)}")
    progress.flush()
    if as_json:
        print(json.dumps({"result": [], "score": [0, 0], "end": end, "error": str(error)}), flush=True)
    return 1


def stopped(progress: Progress, command: str, interrupt: KeyboardInterrupt, as_json: bool) -> int:
    """Say that Ctrl-C stopped ``trumps command`` before its match began (or what it left saved,
    when the interrupt says: :class:`~cli.net.continuing.Stopped`); the exit status,
    :data:`STOPPED`."""
    why = interrupt.args[0] if interrupt.args else Text(N_("stopped before the match began"))
    fail(progress, command, InterruptedError(why), as_json, "stopped")
    return STOPPED


def announce(session: Session, progress: Progress) -> None:
    """Say who plays whom, and the verification code both screens show."""
    peer = session.names[1 - session.seat]
    if not session.code:  # a session read back from the saved match: its code needs the secret, not kept
        progress.say(
            Text(
                N_("You are player {seat}, against {peer} again: the match goes on."),
                seat=session.seat,
                peer=peer,
            )
        )
        return
    progress.say(
        Text(
            N_("You are player {seat}, against {peer}. Verification code: {code}"),
            seat=session.seat,
            peer=peer,
            code=session.code,
        )
    )
    progress.say(Text(N_("  (both screens show the same code when nobody sits in the middle)")))


class Stage:
    """How far a duel got: whether play began, so that a match record exists."""

    playing = False


def run_to_end(
    command: str,
    duel: Coroutine[Any, Any, Report],
    as_json: bool,
    stage: Stage,
    progress: Progress,
    saved: SavedMatch | None = None,
    choice: str | None = None,
) -> int:
    """Run ``duel`` (connect, handshake, play) and report (``choice``: the ``--trump`` suits); the
    exit status (docs/interface.md:
    0, 1, or :data:`STOPPED` after Ctrl-C). SIGTERM and SIGHUP (a closed terminal) pause a
    restart-safe duel (``saved``): the peer waits, the same command continues it; otherwise they
    stop it, and the record says so."""
    import asyncio

    from p2p.duel_machine import PAUSE
    from p2p.errors import P2PError

    async def until_stopped() -> Report:
        import signal

        task, loop = asyncio.current_task(), asyncio.get_running_loop()
        assert task is not None
        loop.set_exception_handler(_unspoken)
        for number in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError, AttributeError):
                loop.add_signal_handler(number, task.cancel, PAUSE)
        return await duel

    try:
        report = asyncio.run(until_stopped())
    except P2PError as exc:
        return fail(progress, command, exc, as_json)
    except OSError as exc:  # a record or saved state that cannot be written (a full disk…)
        return fail(
            progress,
            command,
            OSError(Text(N_("stopped on a local file error: {error}"), error=exc)),
            as_json,
            "error",
        )
    except (KeyboardInterrupt, asyncio.CancelledError) as exc:
        if saved is not None and saved.path.exists():
            why = Text(N_("paused; run the same command again to continue the match"))
            status = fail(progress, command, InterruptedError(why), as_json, "paused")
        else:
            if stage.playing:
                why = Text(N_("stopped; the match record says so"))
            else:
                why = Text(N_("stopped before the match began"))
            status = fail(progress, command, InterruptedError(why), as_json)
        return STOPPED if isinstance(exc, KeyboardInterrupt) else status
    finally:
        if saved is not None:  # the command is over: another program may now play what it kept
            saved.release()
    return finish(report, as_json, progress, choice)


def _unspoken(loop: object, context: dict[str, object]) -> None:
    """What the event loop would log on stderr (a task's or a future's exception nobody retrieved,
    a transport's failure): not the player's business, and it would scramble the full screen.
    What matters reaches the player through the duel's own channels (its status, its refusal
    report, its end), so nothing is written."""


async def read_line(prompt: str, progress: Progress) -> str:
    """A line typed on stdin after ``prompt`` (on stdout, after what ``progress`` said before it),
    read by the event loop: Ctrl-C stops the program at once (``input`` in a thread would keep it
    waiting for Enter)."""
    import asyncio
    import os

    progress.prompt(prompt)
    loop = asyncio.get_running_loop()
    line: asyncio.Future[str] = loop.create_future()
    fd = sys.stdin.fileno()

    def readable() -> None:
        if not line.done():
            line.set_result(os.read(fd, 4096).decode(errors="replace"))

    try:
        loop.add_reader(fd, readable)
    except (OSError, ValueError, NotImplementedError):  # a regular file: it never blocks
        text = sys.stdin.readline()
    else:
        try:
            text = await line
        finally:
            loop.remove_reader(fd)
    progress.answered(text)  # Ctrl-D ended no line: what follows starts on a line of its own
    return text


def finish(report: Report, as_json: bool, progress: Progress, choice: str | None = None) -> int:
    """Say how the match went, in the reader's words, and for a rematch the whole series (each
    match's games, the series' score, every record); the exit status: 0 for a complete match or
    a game awarded to us, else 1. ``choice``: the ``--trump`` suits, whether a second was named."""
    from cli.app.duel_summary import award_words, ending_words, result_words, score_words, series_score
    from cli.app.names import shown_name

    me, peer = report.session.seat, shown_name(report.session.peer_name)
    series = [*_earlier(report), (report.record, report.match)]
    for number, (record, match) in enumerate(series, 1):
        indent = "  " if len(series) > 1 else ""
        if len(series) > 1:
            progress.say(Text(N_("Match {number} of {count}:"), number=number, count=len(series)))
        for result in match.results:
            progress.say(indent + result_words(result, me, peer))
            prefs = trump_prefs(match, result.number)
            clash = None if prefs is None else trump_clash(prefs, result.dealer, me, peer, names_second(choice))
            if clash is not None:
                progress.say(indent + translated(clash))
        if match is report.match and (awarded := award_words(report)) is not None:
            progress.say(indent + awarded)
        if match is not report.match:  # the last one's record closes the summary
            progress.say(indent + translated(Text(N_("Record: {record}"), record=record)))
    mine, theirs = series_score([match for _record, match in series[:-1]], report)
    if len(series) == 1:
        progress.say(Text(N_("Score: {score}."), score=score_words(mine, theirs, peer)))
    else:
        last = series_score([], report)
        template = N_("Score over the {count} matches: {score} (the last one: {last}).")
        progress.say(
            Text(template, count=len(series), score=score_words(mine, theirs, peer), last=score_words(*last, peer))
        )
    if report.reconnects:
        progress.say(
            ntext(
                "The connection was restored {count} time; nothing was lost.",
                "The connection was restored {count} times; nothing was lost.",
                report.reconnects,
            )
        )
    ending = ending_words(report)
    if ending is not None:
        progress.say(ending)
    template = N_("Record: {record}  (check it with: trumps verify {record})")
    progress.say(Text(template, record=report.record))
    progress.flush()  # the JSON line comes after what was said
    if as_json:
        print(json.dumps(report.as_json(), ensure_ascii=False), flush=True)
    return 0 if report.end == "complete" or report.awarded == me else 1


def _earlier(report: Report) -> list[tuple[Path, Match]]:
    """The matches this one is a rematch of, the first first, with their records, read back from
    the records beside this one (a record deleted since leaves its match, and those before it, out)."""
    from p2p.errors import MatchRecordError
    from p2p.record import earlier_matches, verify

    folder = report.record.parent
    try:
        verified = verify(report.record.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, MatchRecordError):
        return []
    found = []
    for match in (previous.match for previous in earlier_matches(folder, verified)):
        # a record is named after its chain root (p2p.record.RecordWriter): ``…-<root[:4]>.jsonl``
        paths = sorted(folder.glob(f"*-{match.session_id[:4].hex()}.jsonl"))
        found.append((paths[0] if paths else folder, match))
    return found


def setup(
    args: argparse.Namespace, command: str, play: Play | None, progress: Progress
) -> tuple[Home, Identity, str, Play] | int:
    """Home, identity, name and how to play; or the exit status of a refusal."""
    from cli.home import Home
    from p2p.errors import P2PError
    from p2p.fairdeal import preference
    from p2p.identity import load_identity

    try:
        name = _name(args, progress)
    except EOFError:  # Ctrl-D at the question
        print(flush=True)  # what follows starts on a line of its own
        return fail(
            progress, command, ValueError(Text(N_("no name given: type one, or give --name NAME"))), args.json
        )
    except KeyboardInterrupt as exc:
        print(flush=True)  # the name question is config's, on a line of its own
        return stopped(progress, command, exc, args.json)
    if name is None:
        return fail(
            progress,
            command,
            ValueError(Text(N_("no name to go by: give --name NAME (no terminal to ask on)"))),
            args.json,
        )
    if not name or len(name) > 32 or not name.isprintable():
        return fail(
            progress,
            command,
            ValueError(Text(N_("--name must be 1-32 printable characters, not {name!r}"), name=args.name)),
            args.json,
        )
    try:
        preference(args.trump)  # a bad --trump or --bot fails here, before any connection
        bot = None if args.bot is None else bot_play(args, progress)
        home = Home.default()
        me = load_identity(home.identity_file)
    except (P2PError, ValueError, OSError) as exc:
        return fail(progress, command, exc, args.json)
    if bot is not None:
        return home, me, name, bot
    if play is None:
        return fail(
            progress,
            command,
            ValueError(Text(N_("interactive play needs the full-screen interface: use --bot LEVEL"))),
            args.json,
        )
    return home, me, name, play


def _name(args: argparse.Namespace, progress: Progress) -> str | None:
    """``--name``, else the name the player gave once (asked now, on a terminal, if never), else
    for a bot its level (``AI (hard)``, as the screen names the AI); ``None`` when there is none
    and no terminal to ask on."""
    from cli import config

    if args.name is not None:
        return str(args.name).strip()
    if sys.stdin.isatty():
        progress.flush()  # the question comes after what was said so far
        return config.player_name()
    remembered = config.valid_name(config.load_config().get("name", ""))
    if remembered is None and args.bot is not None:
        return f"AI ({str(args.bot).lower()})"  # a bot needs nobody to name it: its level does
    return remembered


def bot_play(args: argparse.Namespace, progress: Progress) -> Play:
    """A bot's play (``--bot LEVEL``), saying what happens on ``progress``."""
    from p2p.duel import Duel
    from p2p.liveness import Patience
    from p2p.players import BotPlayer

    player = BotPlayer(args.bot, args.trump)

    async def play(
        channel: Channel,
        session: Session,
        me: Identity,
        home: Home,
        reconnector: Reconnector,
        saved: SavedMatch | None,
        restored: Verified | None,
    ) -> Report:
        announce(session, progress)
        limit = session.forfeit_limit
        patience = Patience(forfeit_after=limit, dead_after=min(Patience.dead_after, limit))
        duel = Duel(
            channel, session, me, player, home.records, limit, None, reconnector, patience, progress.status(),
            saved, None if restored is None else restored.match,
        )  # fmt: skip
        try:
            return await duel.run()
        finally:
            await duel.channel.close()

    return play
