"""What ``trumps host`` and ``trumps join`` share: options, setup, headless bots, the report.

Only the standard library (and :mod:`cli.i18n`) is imported at module level,
so that building the argument parser stays fast; the network and crypto code
loads in ``run``. Human-readable progress goes to stderr, through
:class:`Progress`, which never blocks the match (a full pipe drops lines);
stdout carries the invite line and, with ``--json``, one JSON line at the end.
The interactive game plugs in as a :data:`Play` (``cli/app/network_opponent.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
from typing import TYPE_CHECKING, Any, TextIO

from cli.i18n import N_, translated
from cli.options import add_match_options, add_trump_option, seconds
from cli.printable import printable
from p2p.text import Text, ntext

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Coroutine
    from pathlib import Path

    from cli.home import Home
    from p2p.channel import Channel
    from p2p.duel import Reconnector, Report
    from p2p.handshake import Session, Terms
    from p2p.identity import Identity
    from p2p.invite import Invite
    from p2p.match import Match
    from p2p.portmap import MapResult
    from p2p.record import Verified
    from p2p.saved import SavedMatch

    Play = Callable[
        [Channel, Session, Identity, Home, Reconnector, SavedMatch | None, Verified | None], Awaitable[Report]
    ]
    """Plays a handshaken duel to its end, getting the peer back through the
    :class:`~p2p.duel.Reconnector` after a drop, restart-safe with a :class:`~p2p.saved.SavedMatch`
    and continuing the unfinished match read back from it (the last argument, or ``None``):
    the interactive interface's entry point."""

DEFAULT_PORT = 47111
STOPPED = 130
"""The exit status after Ctrl-C (the shell's 128 + SIGINT)."""
_BOT_TIMEOUT = 180.0


def _port(text: str) -> int:
    if not re.fullmatch("[0-9]{1,5}", text) or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(
            translated(Text(N_("{text!r} is not a port number (0-65535; 0 picks a free one)"), text=text))
        )
    return int(text)


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """Options both sides of a duel take."""
    parser.add_argument(
        "--name",
        help=_tr(
            N_(
                "the name your peer sees and remembers you by (default: the name you gave once, "
                "asked on the first duel)"
            )
        ),
    )
    parser.add_argument(
        "--bot",
        metavar="LEVEL",
        help=_tr(N_("let the AI play at LEVEL (easy, medium, hard…): no interface")),
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help=_tr(N_("print one JSON line with results, score, transcript and record")),
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        help=translated(
            Text(
                N_(
                    "when the peer is silent, unreachable or owes its move this long, you may claim "
                    "the game by forfeit (bots claim at once; in the game you are asked); the joiner "
                    "redials meanwhile (default {seconds:g})"
                ),
                seconds=_BOT_TIMEOUT,
            )
        ),
    )


def add_host_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps host``."""
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=translated(Text(N_("TCP port to listen on (default {port})"), port=DEFAULT_PORT)),
    )
    parser.add_argument(
        "--bind",
        metavar="ADDR",
        help=_tr(N_("listen on this address only (default: every IPv4 and IPv6 address)")),
    )
    parser.add_argument(
        "--advertise",
        metavar="HOST",
        help=_tr(
            N_("the address or name to put in the invite (e.g. your public address when forwarding a port)")
        ),
    )
    parser.add_argument(
        "--no-map",
        action="store_true",
        help=_tr(N_("do not ask the home router to open the port (UPnP, NAT-PMP, PCP)")),
    )
    add_match_options(parser, second_choice=True)
    parser.add_argument(
        "--no-announce",
        action="store_true",
        help=_tr(
            N_("do not announce the game on the local network (trumps join without an invite lists it)")
        ),
    )
    parser.add_argument(
        "--hints",
        action="store_true",
        help=_tr(N_("allow both players the AI's hint (F2); each use is shown to the other and recorded")),
    )
    add_common_arguments(parser)


def add_join_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trumps join``."""
    parser.add_argument(
        "invite",
        nargs="?",
        help=_tr(
            N_(
                "the invite the host gave you: ADDRESS:PORT/FINGERPRINT/SECRET "
                "(left out: choose a game on your network; its host is asked to let you in)"
            )
        ),
    )
    parser.add_argument("--yes", action="store_true", help=_tr(N_("accept the host's rules without asking")))
    add_trump_option(parser, second_choice=True)
    add_common_arguments(parser)


def _tr(template: str) -> str:
    """``template`` (marked with ``N_`` where it is written) in the interface's language."""
    return translated(Text(template))


class Progress:
    """Lines for stderr, written by a thread from a bounded queue: a pipe that nobody reads
    makes lines drop, never the match stop (a flood of refused connections is also rate-limited
    before it gets here: :class:`p2p.admission.RefusalLog`)."""

    def __init__(self, capacity: int = 256, stream: TextIO | None = None) -> None:
        """``stream``: where the lines go (``sys.stderr`` as it is when each line is written)."""
        import queue
        import threading

        self.stream = stream
        self._lines: queue.Queue[str] = queue.Queue(capacity)
        threading.Thread(target=self._write, daemon=True).start()

    def say(self, text: object) -> None:
        """Queue ``text`` (translated) for stderr; dropped if the queue is full."""
        import queue

        with contextlib.suppress(queue.Full):
            self._lines.put_nowait(printable(translated(text)))  # it may quote the peer

    def flush(self, timeout: float = 2.0) -> None:
        """Wait (a little) until what was queued is written."""
        import time

        end = time.monotonic() + timeout
        while self._lines.unfinished_tasks and time.monotonic() < end:
            time.sleep(0.01)

    def _write(self) -> None:
        while True:
            line = self._lines.get()
            with contextlib.suppress(OSError, ValueError):
                print(line, file=self.stream or sys.stderr, flush=True)
            self._lines.task_done()


_PROGRESS: Progress | None = None


def _say(text: object) -> None:
    global _PROGRESS
    if _PROGRESS is None:
        _PROGRESS = Progress()
    _PROGRESS.say(text)


def _flush() -> None:
    if _PROGRESS is not None:
        _PROGRESS.flush()


def _fail(command: str, error: Exception, as_json: bool, end: str = "refused") -> int:
    _say(f"trumps {command}: {translated(error)}")
    _flush()
    if as_json:
        print(json.dumps({"result": [], "score": [0, 0], "end": end, "error": str(error)}), flush=True)
    return 1


def _unrouted(host: str) -> bool:
    """Whether ``host`` is an IP address that the internet does not route to (not globally
    reachable in IANA's special-purpose registries: private, shared by a carrier-grade NAT,
    link-local, loopback, documentation…); ``False`` for a name, which may be anywhere."""
    import ipaddress

    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return not address.is_global


def _describe(terms: Terms) -> str:
    """The terms in words, for the person deciding on them (the invite's rules, not the
    notation's ``pickup=forced sixes=on max_moves=1000``)."""
    if terms.games == 1:
        games = _tr(N_("one game"))
    else:
        games = translated(ntext("a match of {count} game", "a match of {count} games", terms.games))
    rules = terms.rules
    pickup = _tr(N_("forced pick-up") if rules.pickup == "forced" else N_("voluntary pick-up"))
    sixes = _tr(N_("the trump sixes change hands") if rules.sixes else N_("the sixes stay where dealt"))
    cap = translated(ntext("a draw after {count} move", "a draw after {count} moves", rules.max_moves))
    hints = _tr(N_("AI hints allowed, each use shown to the other player") if terms.hints else N_("no AI hints"))
    return f"{games}, {pickup}, {sixes}, {cap}, {hints}"


def trump_prefs(match: Match, number: int) -> tuple[str, str] | None:
    """Both players' revealed trump preferences for game ``number`` (player 0's first), once known."""
    from p2p.messages import Reveal

    prefs = {
        seat: link.pref for seat, link in match.links if isinstance(link, Reveal) and link.game == number
    }
    return (prefs[0], prefs[1]) if len(prefs) == 2 else None


def trump_clash(prefs: tuple[str, str], dealer: int, seat: int, peer: str) -> Text | None:
    """Why ``seat`` or its peer did not get the first choice of trumps, if one did not: both
    asked for the same suit, so the one not dealing keeps it (:func:`p2p.fairdeal.resolve_trumps`)."""
    from engine.cards import SUIT_SYMBOLS, SUITS

    if prefs[0][0] != prefs[1][0]:
        return None
    wanted, second = (SUIT_SYMBOLS[SUITS.index(prefs[i][j])] for i, j in ((0, 0), (dealer, 1)))
    if dealer == seat:
        template = N_(
            "You both asked for {suit}: {name} keeps it, not dealing; you deal and take your second "
            "choice, {second}."
        )
    else:
        template = N_(
            "You both asked for {suit}: you keep it, not dealing; {name} deals and takes their second "
            "choice, {second}."
        )
    return Text(template, suit=wanted, name=peer, second=second)


def _announce(session: Session) -> None:
    peer = session.names[1 - session.seat]
    if not session.code:  # a session read back from the saved match: its code needs the secret, not kept
        _say(Text(N_("You are player {seat}, against {peer} again: the match goes on."), seat=session.seat, peer=peer))
        return
    _say(
        Text(
            N_("You are player {seat}, against {peer}. Verification code: {code}"),
            seat=session.seat,
            peer=peer,
            code=session.code,
        )
    )
    _say(Text(N_("  (both screens show the same code when nobody sits in the middle)")))


class Stage:
    """How far a duel got: whether play began, so that a match record exists."""

    playing = False


def _run_to_end(
    command: str,
    duel: Coroutine[Any, Any, Report],
    as_json: bool,
    stage: Stage,
    saved: SavedMatch | None = None,
) -> int:
    """Run ``duel`` (connect, handshake, play) and report; the exit status (docs/interface.md:
    0, 1, or :data:`STOPPED` after Ctrl-C). SIGTERM and SIGHUP (a closed terminal) pause a
    restart-safe duel (``saved``): the peer waits, the same command continues it; otherwise they
    stop it, and the record says so."""
    import asyncio

    from p2p.duel import PAUSE
    from p2p.errors import P2PError

    async def until_stopped() -> Report:
        import signal

        task, loop = asyncio.current_task(), asyncio.get_running_loop()
        assert task is not None
        for number in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError, AttributeError):
                loop.add_signal_handler(number, task.cancel, PAUSE)
        return await duel

    try:
        report = asyncio.run(until_stopped())
    except P2PError as exc:
        return _fail(command, exc, as_json)
    except OSError as exc:  # a record or saved state that cannot be written (a full disk…)
        return _fail(command, OSError(Text(N_("stopped on a local file error: {error}"), error=exc)), as_json, "error")
    except (KeyboardInterrupt, asyncio.CancelledError) as exc:
        if saved is not None and saved.path.exists():
            why = Text(N_("paused; run the same command again to continue the match"))
            status = _fail(command, InterruptedError(why), as_json, "paused")
        else:
            if stage.playing:
                why = Text(N_("stopped; the match record says so"))
            else:
                why = Text(N_("stopped before the match began"))
            status = _fail(command, InterruptedError(why), as_json)
        return STOPPED if isinstance(exc, KeyboardInterrupt) else status
    status = _finish(report, as_json)
    _flush()
    return status


async def read_line(prompt: str) -> str:
    """A line typed on stdin after ``prompt`` (on stdout), read by the event loop: Ctrl-C stops
    the program at once (``input`` in a thread would keep it waiting for Enter)."""
    import asyncio
    import os

    print(prompt, end="", flush=True)
    loop = asyncio.get_running_loop()
    line: asyncio.Future[str] = loop.create_future()
    fd = sys.stdin.fileno()

    def readable() -> None:
        if not line.done():
            line.set_result(os.read(fd, 4096).decode(errors="replace"))

    try:
        loop.add_reader(fd, readable)
    except (OSError, ValueError, NotImplementedError):  # a regular file: it never blocks
        return sys.stdin.readline()
    try:
        text = await line
    finally:
        loop.remove_reader(fd)
    if not text:  # Ctrl-D: no Enter ended the line, so what follows would stand on the question's
        print(flush=True)
    return text


def _finish(report: Report, as_json: bool) -> int:
    match, me = report.match, report.session.seat
    peer = report.session.peer_name
    for result in match.results:
        template = N_("game {number}: {result} (dealer {dealer}, trumps {trumps})")
        _say(
            Text(
                template, number=result.number, result=result.text, dealer=result.dealer, trumps=result.trumps
            )
        )
        prefs = trump_prefs(match, result.number)
        if prefs is not None and (clash := trump_clash(prefs, result.dealer, me, peer)) is not None:
            _say(clash)
    if report.awarded is not None:
        you = report.awarded == report.session.seat
        winner = Text(N_("you")) if you else report.session.names[report.awarded]
        template = N_("game {number}: {result} (awarded to {winner})")
        _say(Text(template, number=match.number, result=report.results[-1], winner=winner))
    score = report.score
    _say(Text(N_("score: you {mine:g}, {peer} {theirs:g}"), mine=score[me], peer=peer, theirs=score[1 - me]))
    if report.reconnects:
        _say(
            ntext(
                "the connection was restored {count} time; nothing was lost",
                "the connection was restored {count} times; nothing was lost",
                report.reconnects,
            )
        )
    if report.error is not None:
        _say(Text(N_("the match ended early ({end}): {error}"), end=report.end, error=report.error))
    elif report.end != "complete":
        _say(Text(N_("you left the match before its end")))
    _say(Text(N_("record: {record}  (check it with: trumps verify {record})"), record=report.record))
    if as_json:
        print(json.dumps(report.as_json(), ensure_ascii=False), flush=True)
    return 0 if report.end == "complete" or report.awarded == me else 1


def _setup(
    args: argparse.Namespace, command: str, play: Play | None
) -> tuple[Home, Identity, str, Play] | int:
    """Home, identity, name and how to play; or the exit status of a refusal."""
    from cli.home import Home
    from p2p.errors import P2PError
    from p2p.fairdeal import preference
    from p2p.identity import load_identity

    try:
        name = _name(args)
    except EOFError:  # Ctrl-D at the question
        print(flush=True)  # what follows starts on a line of its own
        return _fail(command, ValueError(Text(N_("no name given: type one, or give --name NAME"))), args.json)
    except KeyboardInterrupt:
        print(flush=True)
        _fail(command, InterruptedError(Text(N_("stopped before the match began"))), args.json, "stopped")
        return STOPPED
    if name is None:
        return _fail(
            command, ValueError(Text(N_("no name to go by: give --name NAME (no terminal to ask on)"))), args.json
        )
    if not name or len(name) > 32 or not name.isprintable():
        return _fail(
            command,
            ValueError(Text(N_("--name must be 1-32 printable characters, not {name!r}"), name=args.name)),
            args.json,
        )
    try:
        preference(args.trump)  # a bad --trump or --bot fails here, before any connection
        bot = None if args.bot is None else _bot_play(args)
        home = Home.default()
        me = load_identity(home.identity_file)
    except (P2PError, ValueError, OSError) as exc:
        return _fail(command, exc, args.json)
    if bot is not None:
        return home, me, name, bot
    if play is None:
        return _fail(
            command,
            ValueError(Text(N_("interactive play needs the full-screen interface: use --bot LEVEL"))),
            args.json,
        )
    return home, me, name, play


def _name(args: argparse.Namespace) -> str | None:
    """``--name``, else the name the player gave once (asked now, on a terminal, if never);
    ``None`` when there is none and no terminal to ask on."""
    from cli import config

    if args.name is not None:
        return str(args.name).strip()
    if sys.stdin.isatty():
        _flush()  # the question comes after what was said so far
        return config.player_name()
    return config.valid_name(config.load_config().get("name", ""))


def _bot_play(args: argparse.Namespace) -> Play:
    """A bot's play."""
    from p2p.duel import Duel
    from p2p.liveness import Patience
    from p2p.players import BotPlayer

    player = BotPlayer(args.bot, args.trump)
    timeout = args.timeout or _BOT_TIMEOUT
    patience = Patience(forfeit_after=timeout, dead_after=min(Patience.dead_after, timeout))

    async def play(
        channel: Channel,
        session: Session,
        me: Identity,
        home: Home,
        reconnector: Reconnector,
        saved: SavedMatch | None,
        restored: Verified | None,
    ) -> Report:
        _announce(session)
        duel = Duel(
            channel, session, me, player, home.records, timeout, None, reconnector, patience, _status(),
            saved, None if restored is None else restored.match,
        )  # fmt: skip
        try:
            return await duel.run()
        finally:
            await duel.channel.close()

    return play


def _saved_match(path: Path, bot: bool) -> tuple[SavedMatch | None, Verified | None]:
    """What makes a duel restart-safe (kept in ``path``), and the unfinished match found there,
    read back and checked (:class:`~p2p.saved.SavedMatchError` if it cannot be). A person is
    asked first whether to continue it: on no, the match stays saved, and this duel keeps none
    (``None, None``: it cannot be continued after a restart while the other one waits)."""
    from p2p.saved import SavedMatch, load_saved, restore

    if not path.exists():
        return SavedMatch(path), None
    saved = load_saved(path)
    restored = restore(saved)
    if bot or _continue_asked(restored):
        return saved, restored
    _say(Text(_KEPT, path=path))
    return None, None


_KEPT = N_("The unfinished match stays saved in {path}; delete that file to drop it.")


def _continue_asked(restored: Verified) -> bool:
    """The person's answer, on the terminal before the full screen takes it: continue the
    unfinished match ``restored``? (Enter: yes; the end of input: no.)"""
    question = N_("Continue your unfinished match against {peer} (game {number}, move {moves})? [Y/n] ")
    _flush()
    try:
        answer = input(printable(translated(Text(question, **_stopped_at(restored)))))
    except EOFError:
        return False
    return not answer.strip() or answer.strip().lower() in _yes_words()


def _stopped_at(restored: Verified) -> dict[str, object]:
    """Where the unfinished match ``restored`` stopped, as the questions name it: the ``peer``,
    the game's ``number`` and the number of the move to come (``moves``)."""
    session, match = restored.session, restored.match
    moves = 0 if match.game is None else len(match.game.moves)
    return {"peer": session.names[1 - session.seat], "number": match.number, "moves": moves + 1}


def _lan_saved_match(home: Home, bot: bool) -> tuple[SavedMatch, Verified] | None:
    """The unfinished match joined from the LAN list that ``trumps join`` without an invite
    continues (its host no longer announces it), or ``None``: there is none, or the person
    chose none, and the LAN list is browsed. One that cannot be continued is said in a line and
    passed over; with several, the person chooses (a bot takes the newest)."""
    from p2p.saved import SavedMatchError, lan_joined, restore

    ready = []
    for saved in lan_joined(home.unfinished):
        try:
            ready.append((saved, restore(saved)))
        except SavedMatchError as exc:
            _say(exc)
    if not ready or bot:
        return ready[0] if ready else None
    if len(ready) == 1:
        if _continue_asked(ready[0][1]):
            return ready[0]
        _say(Text(_KEPT, path=ready[0][0].path))
        return None
    chosen = _continue_chosen(ready)
    if chosen is None:
        template = N_("The unfinished matches stay saved in {folder}; delete a file there to drop its match.")
        _say(Text(template, folder=home.unfinished))
        return None
    return ready[chosen]


def _continue_chosen(matches: list[tuple[SavedMatch, Verified]]) -> int | None:
    """Which of the unfinished ``matches`` the person continues, asked on the terminal (Enter:
    the first, the newest); ``None`` for any other answer, and at the end of input."""
    _say(Text(N_("Unfinished matches you joined on your network:")))
    for number, (saved, restored) in enumerate(matches, 1):
        assert saved.invite is not None
        template = N_("  {choice}. against {peer} at {address} port {port} (game {number}, move {moves})")
        address, port = saved.invite.addresses[0]
        _say(Text(template, choice=number, address=address, port=port, **_stopped_at(restored)))
    _flush()
    question = N_("Continue which one? [1-{count}; Enter: 1; n: none, look for games on your network] ")
    try:
        answer = input(translated(Text(question, count=len(matches)))).strip()
    except EOFError:
        return None
    if not answer:
        return 0
    return int(answer) - 1 if re.fullmatch("[0-9]{1,3}", answer) and 1 <= int(answer) <= len(matches) else None


async def _back(way: Reconnector, restored: Verified, timeout: float | None) -> Channel:
    """The peer of the continued match ``restored``, back on a fresh connection within the
    forfeit limit; past it, a :class:`~p2p.errors.ConnectionClosed` (the match stays saved)."""
    import asyncio

    from p2p.errors import ConnectionClosed

    limit = timeout or _BOT_TIMEOUT
    try:
        async with asyncio.timeout(limit):
            return (await way.reconnect())[0]
    except TimeoutError:
        template = N_("{peer} did not come back within {seconds:g} s; the match stays saved for another try")
        peer = restored.session.names[1 - restored.session.seat]
        raise ConnectionClosed(Text(template, peer=peer, seconds=limit)) from None


def _say_continuing(restored: Verified) -> None:
    session, match = restored.session, restored.match
    moves = 0 if match.game is None else len(match.game.moves)
    template = N_("Continuing the unfinished match with {peer} (game {number}, after move {moves})…")
    _say(Text(template, peer=session.names[1 - session.seat], number=match.number, moves=moves))


def _status() -> Callable[[str], None]:
    """Shows status lines on stderr, skipping those that differ only in their numbers (countdowns)."""
    last = [""]

    def show(text: str) -> None:
        shape = "".join(c for c in text if not c.isdigit())
        if text and shape != last[0]:
            _say(text)
        last[0] = shape

    return show


def run_host(args: argparse.Namespace, play: Play | None = None) -> int:
    """``trumps host``: listen, print the invite, play the match (with ``play`` unless ``--bot``)."""

    import time

    from engine import Rules
    from p2p.addresses import host_addresses, is_loopback, socket_families
    from p2p.admission import source_of
    from p2p.connect import Listener, listening_socket
    from p2p.discovery import Announcement
    from p2p.errors import P2PError
    from p2p.handshake import Terms
    from p2p.identity import KnownPeers
    from p2p.portmap import PortMapping, default_mappers
    from p2p.saved import SavedMatchError, hosted_file

    setup = _setup(args, "host", play)
    if isinstance(setup, int):
        return setup
    home, me, name, play_duel = setup
    rules = Rules(pickup=args.pickup or "forced", sixes=not args.no_sixes)
    terms = Terms(rules, args.games or 1, hints=args.hints)
    try:
        saved, restored = _saved_match(hosted_file(home.unfinished), bool(args.bot))
    except SavedMatchError as exc:
        if args.bot:
            return _fail("host", exc, args.json)
        _say(exc)  # a person hosts a new match; the unreadable one is left for a look
        saved, restored = None, None
    except KeyboardInterrupt:  # at the question whether to continue
        return _fail("host", InterruptedError(Text(N_("stopped before the match began"))), args.json)
    if restored is not None:  # the host continues its unfinished match, under its invite
        assert saved is not None and saved.invite is not None
        terms, name = restored.session.terms, restored.session.names[restored.session.seat]
        args.port = saved.invite.addresses[0][1]
    try:
        sock = listening_socket(args.bind, args.port)
    except OSError as exc:
        where = args.bind or Text(N_("every address"))
        error = Text(
            N_("cannot listen on {where} port {port}: {error}"),
            where=where,
            port=args.port,
            error=exc.strerror or exc,
        )
        return _fail("host", OSError(error), args.json)
    port = sock.getsockname()[1]
    stage = Stage()
    families = socket_families(sock)
    local = host_addresses(args.bind, **families)
    announce = not args.no_announce and not is_loopback(args.bind)
    approve = None if args.bot is not None or not announce else _ask_person  # a bot takes only invites
    # a continued match awaits its joiner alone: by the LAN knock if it came so (nobody is asked then)
    returns_by_lan = _ask_person if restored is not None and saved is not None and saved.lan else None

    async def main() -> Report:
        ipv4, ipv6 = ([], []) if args.no_map else default_mappers(args.bind, **families)
        known = KnownPeers(home.peers_file)
        async with (
            PortMapping(port, ipv4, ipv6) as mapping,  # the router's lease, deleted on exit
            Listener(
                sock, me, name, terms, known, _say,
                None if saved is None or saved.invite is None else saved.invite.secret,
                approve=returns_by_lan or (None if restored is not None else approve),
            ) as listener,
        ):  # fmt: skip
            reachable = [(args.advertise, port)] if args.advertise else mapping.result.reachable(local, port)
            invite = listener.invite(reachable)
            if restored is not None:
                assert saved is not None and saved.invite is not None
                invite, listener.playing = saved.invite, restored.session  # only that joiner gets in
                listener.playing_lan = saved.lan
                if saved.joiner is not None:  # its return keeps its slot, as before the restart
                    listener.admission.reserved = source_of(saved.joiner)
                _say_continuing(restored)
            elif saved is not None:
                saved.invite = invite
            print(
                printable(translated(Text(N_("Send this to your friend:  trumps join {invite}"), invite=invite))),
                flush=True,
            )
            _say(
                Text(
                    N_("Hosting {terms} on port {port}; waiting for your friend to join…"),
                    terms=_describe(terms),
                    port=port,
                )
            )
            _say_reach(args.advertise is None, mapping.result, invite.addresses[0][0], port)
            if restored is not None:
                channel, session = await _back(listener, restored, args.timeout), restored.session
            else:
                async with contextlib.AsyncExitStack() as announcing:  # on the LAN (mDNS) until a joiner is in
                    if announce:
                        try:
                            await announcing.enter_async_context(
                                Announcement(name, me.fingerprint, terms, local, port)
                            )
                        except P2PError as exc:
                            listener.approve = None  # nobody finds it: only invites
                            _say(exc)
                    channel, session = await listener.first()
                if saved is not None:  # on disk with the duel's first save, before any link
                    saved.lan = listener.playing_lan
                    saved.joiner_at(channel.peer_host)
            stage.playing = True
            start = time.monotonic()
            _flush()  # before a full screen takes the terminal
            report = await play_duel(channel, session, me, home, listener, saved, restored)
            report.timing["match_s"] = round(time.monotonic() - start, 3)
            return report

    return _run_to_end("host", main(), args.json, stage, saved)


def _say_reach(asked: bool, mapped: MapResult, first: str, port: int) -> None:
    """Say on stderr how a friend can reach us: what the router did, or the manual steps when
    nothing outside can reach the invite's first address (``asked``: no ``--advertise``)."""
    from p2p.addresses import is_loopback

    if mapped.mapped is not None:
        lease = mapped.mapped
        template = N_("Your router opened port {port} ({method}); the invite uses {address}.")
        _say(Text(template, port=lease.external_port, method=lease.method, address=lease.external_address))
    if mapped.pinhole is not None:
        template = N_("Your router's firewall lets IPv6 connections in to port {port} ({method}).")
        _say(Text(template, port=mapped.pinhole.external_port, method=mapped.pinhole.method))
    if asked and mapped.mapped is None and is_loopback(first):
        template = N_(
            "(That address works only on this machine: nobody elsewhere can join. To play across "
            "your network or the internet, leave out --bind or give one of this machine's network "
            "addresses.)"
        )
        _say(Text(template))
    elif asked and mapped.mapped is None and _unrouted(first):
        if mapped.failures:
            reasons = "; ".join(f"{method}: {translated(error)}" for method, error in mapped.failures)
            _say(Text(N_("Your router did not open the port ({reasons})."), reasons=reasons))
        template = N_(
            "(That address only works nearby. Across the internet, forward TCP port {port} on your "
            "router to this machine and run again with --advertise YOUR-PUBLIC-ADDRESS, or give an "
            "IPv6 address.)"
        )
        _say(Text(template, port=port))


async def _ask_person(name: str, address: str, code: str) -> bool:
    """The host's person decides on a LAN joiner, on the terminal (before any full screen takes
    it); no answer (end of input) is no."""

    question = N_(
        "{name} wants to join from {address} (verification code {code}: {name}'s screen shows the same) "
        "— accept? [y/N]"
    )
    _say(Text(question, name=name, address=address, code=code))
    _flush()
    # a question withdrawn meanwhile (the joiner left) leaves what was typed to the next one
    return (await read_line("")).strip().lower() in _yes_words()


def _yes_words() -> set[str]:
    """What counts as yes to a ``[y/N]`` question, in English and in the interface's language."""
    return {"y", "yes", *_tr(N_("y yes")).lower().split()}


_BROWSE_SECONDS = 1.5


def _choose_host(args: argparse.Namespace) -> Invite:
    """The (secretless) invite of a game announced on the local network: the one chosen from the
    list (bots and ``--yes`` take the first heard)."""
    import asyncio

    from p2p.discovery import DiscoveryError, browse

    _say(Text(N_("Looking for games on your network…")))
    found = asyncio.run(browse(_BROWSE_SECONDS))
    if not found:
        raise DiscoveryError(
            Text(N_("no game announces itself on your network; ask your friend for the invite line"))
        )
    for number, host in enumerate(found, 1):
        template = N_("  {number}. {name}: {terms} ({address} port {port})")
        terms, where = _describe(host.terms), host.addresses[0]
        _say(Text(template, number=number, name=host.name, terms=terms, address=where, port=host.port))
    if args.bot or args.yes:
        return found[0].invite()
    _flush()
    try:
        answer = input(translated(Text(N_("Join which one? [1-{count}] "), count=len(found)))).strip()
    except EOFError:  # no one at the keyboard
        answer = ""
    if not re.fullmatch("[0-9]{1,3}", answer) or not 1 <= int(answer) <= len(found):
        raise DiscoveryError(Text(N_("{answer!r} is not one of the games listed"), answer=answer))
    return found[int(answer) - 1].invite()


def run_join(args: argparse.Namespace, play: Play | None = None) -> int:
    """``trumps join INVITE``: connect, agree on the rules, play the match (with ``play`` unless ``--bot``)."""
    import time

    from p2p.connect import Redial, join
    from p2p.errors import P2PError
    from p2p.handshake import LAN_SECRET
    from p2p.identity import KnownPeers
    from p2p.invite import Invite
    from p2p.saved import joined_file

    try:
        invite = None if args.invite is None else Invite.parse(args.invite)
    except P2PError as exc:
        return _fail("join", exc, args.json)
    setup = _setup(args, "join", play)
    if isinstance(setup, int):
        return setup
    home, me, name, play_duel = setup
    saved: SavedMatch | None
    restored: Verified | None
    try:
        # a match joined from the LAN list continues first: its host no longer announces it
        lan_match = None if invite is not None else _lan_saved_match(home, bool(args.bot))
        if lan_match is not None:
            saved, restored = lan_match
            assert saved.invite is not None
            invite = saved.invite
        else:
            invite = invite or _choose_host(args)
            saved, restored = _saved_match(joined_file(home.unfinished, invite), bool(args.bot))
    except P2PError as exc:
        return _fail("join", exc, args.json)
    except KeyboardInterrupt:  # at a question, or while browsing
        return _fail("join", InterruptedError(Text(N_("stopped before the match began"))), args.json)
    if saved is None:  # the invite's host waits for the saved match: joining anew would be refused
        return _fail("join", InterruptedError(Text(N_("the unfinished match was not continued"))), args.json)
    if invite.secret == LAN_SECRET:
        saved.invite = invite  # no invite line to give again: a restart redials this entry

    yes_words = _yes_words()
    stage = Stage()

    async def decide(terms: Terms, host_name: str) -> bool:
        _say(Text(N_("{name} proposes {terms}."), name=host_name, terms=_describe(terms)))
        if args.yes or args.bot:
            return True
        _flush()
        answer = await read_line(_tr(N_("Accept these rules? [y/N] ")))
        return answer.strip().lower() in yes_words

    def asked(code: str) -> None:
        template = N_(
            "Waiting for the host to let you in; compare the verification code {code} with the host's screen"
        )
        _say(Text(template, code=code))

    async def main() -> Report:
        where = ", ".join(f"{host} port {port}" for host, port in invite.addresses)
        _say(Text(N_("Connecting to {addresses}…"), addresses=where))
        start = time.monotonic()
        if restored is not None:  # the same host and terms, redialed until it answers
            _say_continuing(restored)
            session = restored.session
            redial = Redial(invite, me, session.names[session.seat], KnownPeers(home.peers_file), session)
            channel = await _back(redial, restored, args.timeout)
            return await play_duel(channel, session, me, home, redial, saved, restored)
        channel, session = await join(invite, me, name, KnownPeers(home.peers_file), decide, asked=asked)
        handshaken = time.monotonic()
        stage.playing = True
        _flush()  # before a full screen takes the terminal
        redial = Redial(invite, me, name, KnownPeers(home.peers_file), session)
        report = await play_duel(channel, session, me, home, redial, saved, None)
        report.timing["handshake_s"] = round(handshaken - start, 4)
        report.timing["match_s"] = round(time.monotonic() - handshaken, 3)
        return report

    return _run_to_end("join", main(), args.json, stage, saved)
