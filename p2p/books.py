"""Both players' books: what two records of one match, one kept by each side, say together
(``trumps verify A B``; docs/protocol.md, "Records", "Two records of one match").

Each record is its saver's account: the signed links both share, then an unsigned note. Two
records of one match agree on every link they both hold (both are checked against the same
signatures); they can differ in how far they got, and in the game their notes award. After a
real outage longer than the limit each stayer may have awarded itself the same game: the
records then dispute it, and no third party can settle who was away.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p.errors import P2PError
from p2p.record import Verified
from p2p.text import N_, Text


@dataclass(frozen=True)
class Books:
    """What two verified records of one match say together."""

    lines: list[Text]
    """For people: whose records they are, where they part, and the awards compared."""
    disputed: bool
    """Each record awards the same game to its own saver."""


class NotOneMatch(P2PError):
    """The two records are not both players' records of one match."""


def compare_books(first: Verified, second: Verified) -> Books:
    """Compare the records of the two players of one match; :class:`NotOneMatch` if they are not."""
    if first.match.session_id != second.match.session_id:
        raise NotOneMatch(Text(N_("the two records are of different matches")))
    if first.session.seat == second.session.seat:
        raise NotOneMatch(Text(N_("both records were kept by player {seat}"), seat=first.session.seat))
    shorter, longer = sorted((first, second), key=lambda books: len(books.match.links))
    if longer.match.links[: len(shorter.match.links)] != shorter.match.links:
        raise NotOneMatch(Text(N_("the two records hold different signed links: they are not one match")))
    count, more = len(shorter.match.links), len(longer.match.links) - len(shorter.match.links)
    if more:
        template = N_("the records share {count} signed links; player {seat}'s goes on for {more} more")
        lines = [Text(template, count=count, seat=longer.session.seat, more=more)]
    else:
        lines = [Text(N_("both records hold the same {count} signed links"), count=count)]
    awards = {books.session.seat: books.awarded for books in (first, second)}
    games = {award[0] for award in awards.values() if award is not None}
    disputed = False
    for game in sorted(games):
        winners = {seat: award[1] for seat, award in awards.items() if award is not None and award[0] == game}
        if len(winners) == 2 and winners[0] != winners[1]:
            disputed = True
            lines.append(
                Text(
                    N_(
                        "DISPUTED: game {game}: each record awards it to its own saver (each says the "
                        "other left or stayed away; neither signed the other's claim)"
                    ),
                    game=game,
                )
            )
        elif len(winners) == 2:
            lines.append(Text(N_("both records award game {game} to player {winner}"), game=game, winner=winners[0]))
        else:
            ((saver, winner),) = winners.items()
            template = N_("game {game}: only player {saver}'s record awards it, to player {winner}")
            lines.append(Text(template, game=game, saver=saver, winner=winner))
    if not games:
        lines.append(Text(N_("neither record awards a game")))
    return Books(lines, disputed)
