"""Reading back the unfinished game that ``trumps`` offers to continue."""

from __future__ import annotations

from cli import storage
from cli.app.ai_opponent import AIOpponent
from cli.app.match import Match
from cli.app.session import Resume
from cli.i18n import _
from engine import Game, RecordError


def load_unfinished() -> tuple[Resume | None, str]:
    """The unfinished game against the AI, if any, and a note when it could not be read.

    A damaged note or record is reported, and forgotten so that the question
    does not come back; the record itself stays in the history.
    """
    try:
        saved = storage.load_unfinished()
        if saved is None:
            return None, ""
        game = Game.from_record(storage.read_text(saved.path))
        if "Seed" not in game.headers:  # the engine checks Dealer and Trumps against the seed only
            raise RecordError("the record does not name its deal (Seed, Dealer, Trumps)")
    except (storage.StorageError, RecordError) as exc:
        storage.clear_unfinished()
        return None, _("Your unfinished game could not be read, so a new one starts: {error}").format(
            error=exc
        )
    if game.result is not None:
        storage.clear_unfinished()
        return None, ""
    match = Match(saved.games, saved.me, saved.played, list(saved.halves))
    return Resume(game, match, saved.path, AIOpponent(saved.level), saved.me), ""
