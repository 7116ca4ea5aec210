"""A handshaken duel played on the full-screen game: :func:`play_duel` (host and join, interactive).

It builds the screen around a :class:`~cli.app.network_opponent.NetworkOpponent` (the score of
a continued series, the game in progress on the table) and runs it to the duel's end. A program
told to stop (SIGHUP, SIGTERM: the task cancelled with :data:`~p2p.duel_machine.PAUSE`) and a
closed terminal (the app's input ends first) both pause a restart-safe duel.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from cli.app.network_opponent import NetworkOpponent
from cli.home import Home
from engine import Game
from p2p.channel import Channel
from p2p.duel import Report
from p2p.duel_line import Reconnector
from p2p.duel_machine import PAUSE
from p2p.handshake import Session
from p2p.identity import Identity
from p2p.liveness import Patience
from p2p.match import Match
from p2p.record import earlier_matches

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

    from cli.app.resume import SavedGame
    from cli.app.score import MatchScore
    from p2p.record import Verified
    from p2p.saved import SavedMatch


async def play_duel(
    channel: Channel,
    session: Session,
    me: Identity,
    home: Home,
    reconnector: Reconnector | None = None,
    saved: SavedMatch | None = None,
    restored: Verified | None = None,
    trump: str | None = None,
    patience: Patience | None = None,
    input: Input | None = None,
    output: Output | None = None,
) -> Report:
    """Play a handshaken duel in the full-screen game (``trump``: the ``--trump`` suits, the
    first asked when ``None``); the report.

    With ``saved`` the duel is restart-safe: when this task is cancelled with
    :data:`~p2p.duel.PAUSE` (SIGHUP, SIGTERM) it pauses, and the peer waits. ``restored``
    is the unfinished match it continues: the screen starts at the chain's position, the
    game in progress on the table with its moves, the earlier games in the score (for a
    rematch, the earlier matches' too, read from their records: the series' running score).
    ``input`` and ``output`` replace the terminal (tests).
    """
    from cli import config
    from cli.app.application import play
    from cli.app.screen import GameScreen as Screen

    match = None if restored is None else restored.match
    opponent = NetworkOpponent(channel, session, me, home, reconnector, patience, trump, saved, match)
    terms = session.terms
    remembered = config.load_config()
    series = [] if restored is None else [*earlier_matches(home.records, restored), restored]
    score = _score(terms.games, session.seat, [verified.match for verified in series])
    screen = Screen(
        opponent,
        score,
        rules=terms.rules,
        trump=trump[0] if trump else None,
        last_trump=remembered.get("trump"),
        resume=None if match is None else _in_progress(match, score, opponent, saved),
        show_opponent=True,
    )
    if match is not None and screen.resume is None:
        screen.flow.number = len(match.results)  # the next deal is the chain's next game
    app = asyncio.ensure_future(play(screen, input, output))
    try:
        await asyncio.shield(app)
    except asyncio.CancelledError as exc:
        if exc.args[:1] == (PAUSE,):
            opponent.hang_up()
        app.cancel()  # the screen closes, and with it the duel: paused, or quit
        with contextlib.suppress(asyncio.CancelledError, EOFError):
            await app
        await _finished_through_signals(opponent)
        raise
    except EOFError:  # the terminal is gone and the screen hung up: paused, as by its SIGHUP to come
        await _finished_through_signals(opponent)
        raise asyncio.CancelledError(PAUSE) from None
    return await opponent.finished()


async def _finished_through_signals(opponent: NetworkOpponent) -> None:
    """Wait for ``opponent``'s end (its pause or its quit on the way to the peer) through any stop
    signal still to come: a closed terminal's SIGHUP arrives after its input ended, SIGTERM may
    follow SIGHUP, and each cancels this task again."""
    finishing = asyncio.ensure_future(opponent.finished())
    while not finishing.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(finishing)
    if not finishing.cancelled():
        finishing.result()


def _score(games: int, seat: int, series: list[Match]) -> MatchScore:
    """The screen's score of the last match of ``series`` (one match and the rematches after it),
    counting the games already finished, the earlier matches' in the running score as if they had
    been played on this screen."""
    from cli.app.score import MatchScore

    score = MatchScore(games=games, me=seat)
    for number, match in enumerate(series):
        if number:
            score = score.rematch()
        for result in match.results:
            score.finish_game(result.dealer, result.outcome)
    return score


def _in_progress(
    match: Match, score: MatchScore, opponent: NetworkOpponent, saved: SavedMatch | None
) -> SavedGame | None:
    """The game of the continued ``match`` that was dealt and not finished, for the screen to
    continue at its last move (a copy: the duel's own game goes on in the match), in the game
    record the stopped screen kept of it (found from the time of ``saved``'s match record)."""
    from datetime import UTC, datetime

    from cli import storage
    from cli.app.flow import RECORD_DATE, game_headers
    from cli.app.resume import SavedGame, interrupted_record

    if match.game is None or match.dealer is None:
        return None
    game = Game.from_deal(match.seed, match.dealer, match.trumps, match.game.start.rules)
    for move in match.game.moves:
        game.play(move)
    record = None if saved is None else saved.record
    path, kept = (storage.new_record_path(), {}) if record is None else interrupted_record(game, record.name[:16])
    date = kept.get("Date") or datetime.now(UTC).strftime(RECORD_DATE)  # when the game began, if known
    game.headers.update(game_headers(opponent.name, opponent.seat, score, date))
    return SavedGame(game, score, path, opponent, opponent.seat, match.number)

