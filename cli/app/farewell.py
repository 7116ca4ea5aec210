"""What the terminal says once the game screen has closed: never a silent exit."""

from __future__ import annotations

from cli.app.flow import GameFlow
from cli.app.saving import Saver
from cli.i18n import _


def farewell(flow: GameFlow, saver: Saver) -> list[str]:
    """The lines printed after the screen of ``flow`` closed: the score so far, what became of a
    game left unfinished, and where ``saver`` keeps the records."""
    path = saver.path
    match, them = flow.match, flow.their_name
    lines = []
    if match.played or match.matches:
        score = match.headline(_("You"), them)
        if match.games == 1:
            lines.append(_("Score: {score}.").format(score=score))
        elif match.over:
            lines.append(_("Match over: {winner} ({score}).").format(winner=match.winner_text(them), score=score))
        elif match.played:
            text = _("The match stopped after game {played} of {games}: {score}.")
            lines.append(text.format(played=match.played, games=match.games, score=score))
    if flow.in_progress and path is not None:
        if saver.resumes(flow.opponent.resume_as):
            lines.append(_("Your game is saved: 'trumps' offers to continue it next time."))
        else:
            lines.append(_("Your unfinished game stays in your history: {file}.").format(file=path.name))
    if path is not None:
        text = _("Your games are saved in {folder} (the last one: {file}); 'trumps history' lists them.")
        lines.append(text.format(folder=path.parent, file=path.name))
    return lines
