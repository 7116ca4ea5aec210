"""The game flow of the screen: the match being played, the game on the table, whose move it
is, and what happened, in the player's words. No prompt_toolkit and no disk: the screen
(:mod:`cli.app.screen`) asks here and shows the answers; the rules stay in the engine.

>>> from cli.app.ai_opponent import AIOpponent
>>> from cli.app.score import MatchScore
>>> flow = GameFlow(AIOpponent("easy", bytes(32)), MatchScore())
>>> flow.begin(Deal(bytes(32), dealer=1, trumps="SH"), date="2026-12-01 09:00:00 UTC")
'New game: AI (easy) dealt.'
>>> flow.my_turn, flow.refusal(Move.parse("take"))
(True, 'The pile is empty: lay one card on it.')
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cli.app.cards import card_text, count_cards
from cli.app.names import MY_NAME, shown_name
from cli.app.opponent import Deal, Opponent, OpponentLeft
from cli.app.resume import SavedGame
from cli.app.score import MatchScore
from cli.i18n import _
from engine import TAKE, Card, Game, Illegal, IllegalMoveError, Move, Outcome, Reason, Rules

RECORD_DATE = "%Y-%m-%d %H:%M:%S UTC"
"""How a game record's ``Date`` header is written (``datetime.strftime``)."""


def game_headers(opponent: str, me: int, match: MatchScore, date: str) -> dict[str, str]:
    """A game record's headers besides the deal: when it began, who sat where (the local player
    in seat ``me``), and which game of ``match`` it is."""
    names = [opponent, opponent]
    names[me] = MY_NAME
    return {"Date": date, "Players": f"{names[0]} vs {names[1]}", "Match": f"game {match.number} of {match.games}"}


@dataclass
class GameFlow:
    """A match between the local player (seat ``me``) and ``opponent``, one game at a time."""

    opponent: Opponent
    match: MatchScore
    rules: Rules = field(default_factory=Rules)
    ascii: bool = False
    """Cards in the texts as letters (``KS``) instead of symbols."""
    game: Game | None = None
    me: int = 0
    dealer: int = 0
    number: int = 0
    """Games dealt in this session (what the opponent's ``deal`` counts)."""
    result: str = ""
    """How the game just ended, in words (empty while it goes on)."""
    left: bool = False
    """Whether the opponent left (:class:`~cli.app.opponent.OpponentLeft`) before the game's end."""

    @property
    def my_turn(self) -> bool:
        """Whether the local player is to move in a game in progress."""
        return self.game is not None and self.game.result is None and self.game.position.turn == self.me

    @property
    def in_progress(self) -> bool:
        """Whether a game is being played (dealt and not over)."""
        return self.game is not None and self.game.result is None

    @property
    def their_name(self) -> str:
        """The opponent's name as the screen shows it."""
        return shown_name(self.opponent.name)

    @property
    def match_ended(self) -> bool:
        """Whether the match is over before its games are: a peer that left (the game awarded by
        forfeit, or not) ended the duel, and with it the match; a failing opponent (a broken
        plug-in) or an AI ends only its game."""
        return self.left and not self.opponent.local

    @property
    def game_number(self) -> int:
        """The number in the match of the game on the board."""
        if self.game is not None and self.game.result is not None:
            return self.match.played
        return self.match.number

    def my_hand(self) -> tuple[Card, ...]:
        """The local player's cards, sorted by suit and rank."""
        return self.game.position.hand(self.me) if self.game else ()

    def moves_from(self, picked: list[Card]) -> list[Move]:
        """The legal moves that start with the cards ``picked`` (none when it is not my turn)."""
        if not self.my_turn:
            return []
        assert self.game is not None
        count = len(picked)
        return [m for m in self.game.position.legal_moves() if list(m.cards[:count]) == picked]

    def next_cards(self, picked: list[Card]) -> set[Card]:
        """The cards that continue a legal move after ``picked`` (the hand shows them playable)."""
        return {m.cards[len(picked)] for m in self.moves_from(picked) if len(m.cards) > len(picked)}

    def only_take(self) -> bool:
        """Whether taking is the one legal move (nothing beats the top card)."""
        return self.my_turn and self.game is not None and self.game.position.legal_moves() == [TAKE]

    def take_count(self) -> int | None:
        """How many cards a pick-up would take now (``None`` without a game in progress)."""
        return self.game.position.take_count() if self.in_progress and self.game is not None else None

    # ------------------------------------------------------------ the deal

    def next_deal(self) -> tuple[int, int | None]:
        """Count one more game dealt: its number in the session, and the dealer the match names."""
        self.number += 1
        return self.number, self.match.next_dealer

    def begin(self, deal: Deal, date: str) -> str:
        """Put the dealt game on the table; what to tell the player."""
        self.me, self.dealer = deal.me, deal.dealer
        self.match.me = deal.me  # the score reads the local player's seat from the match
        headers = game_headers(self.opponent.name, deal.me, self.match, date)
        self.game = Game.from_deal(deal.seed, deal.dealer, deal.trumps, self.rules, **headers)
        self.result, self.left = "", False
        if self.match.games == 1:
            text = _("New game: you dealt.") if deal.dealer == self.me else _("New game: {name} dealt.")
        elif deal.dealer == self.me:
            text = _("Game {number} of {games}: you dealt.")
        else:
            text = _("Game {number} of {games}: {name} dealt.")
        return text.format(number=self.match.number, games=self.match.games, name=self.their_name)

    def resume(self, saved: SavedGame) -> str:
        """Put a saved unfinished game back on the table; what to tell the player."""
        self.opponent, self.match, self.me = saved.opponent, saved.match, saved.me
        self.rules = saved.game.start.rules
        self.game = saved.game
        self.dealer = int(saved.game.headers.get("Dealer", "0"))
        self.number = saved.number
        if self.match.games == 1:
            return _("Welcome back: your game continues.")
        return _("Welcome back: game {number} of {games} continues.").format(
            number=self.match.number, games=self.match.games
        )

    # ----------------------------------------------------------- the moves

    def refusal(self, move: Move) -> str | None:
        """Why the engine refuses ``move`` (its :meth:`~engine.Position.why_illegal`), in the
        player's words; ``None`` when it is legal."""
        assert self.game is not None
        position = self.game.position
        reason = position.why_illegal(move)
        top = position.top
        if reason is None:
            return None
        if reason is Illegal.NOT_HELD:
            missing = next(c for c in move.cards if c not in position.hand(self.me))
            return _("You do not hold {card}.").format(card=self._card(missing))
        if reason is Illegal.EMPTY_PILE:
            return _("The pile is empty: lay one card on it.")
        if reason is Illegal.GAME_OVER:
            return _("No game in play: answer the question below.")
        assert top is not None  # the other rules concern a card on the pile
        if reason is Illegal.MUST_BEAT:
            return _("{card} beats {top}, so you must beat (forced pick-up).").format(
                card=self._card(position.beaters()[0]), top=self._card(top)
            )
        if reason is Illegal.NO_BEAT and self.only_take():
            return _("Nothing of yours beats {top}: take {cards} (Enter on an empty line).").format(
                top=self._card(top), cards=count_cards(position.take_count())
            )
        if reason is Illegal.NO_BEAT:
            return _("{card} does not beat {top}.").format(
                card=self._card(move.cards[0]), top=self._card(top)
            )
        return _("After beating with {card} you must lay a second card on it.").format(
            card=self._card(move.cards[0])
        )

    def play(self, move: Move) -> None:
        """Play the local player's legal ``move`` and hand it to the opponent."""
        assert self.game is not None
        self.game.play(move)
        self.opponent.played(self.game, move)

    def play_theirs(self, move: Move) -> str | None:
        """Play the opponent's ``move``; why not, when it is illegal."""
        assert self.game is not None
        try:
            self.game.play(move)
        except IllegalMoveError:
            return _("{name} played an illegal move ({move}).").format(name=self.their_name, move=move)
        return None

    def undo(self) -> int:
        """Take back the local player's last move and the replies to it; how many moves (0: none)."""
        assert self.game is not None
        game = self.game
        for count, ply in enumerate(range(len(game.moves) - 1, -1, -1), 1):
            if game.positions[ply].turn == self.me:
                game.undo(count)
                return count
        return 0

    # ------------------------------------------------------------- the end

    def finish(self) -> str:
        """Score the finished game and put its result in words; the question of what comes next."""
        assert self.game is not None and self.game.result is not None
        outcome = self.game.result
        self.match.finish_game(self.dealer, outcome)
        self.result = self.outcome_text(outcome)
        if self.match.over and self.match.games == 1:
            return _("Play again? [Y/n]")
        if self.match.over:
            score = self.match.score_text(_("You"), self.their_name)
            winner = self.match.winner_text(self.their_name)
            return _("{winner} ({score}). Play another match? [Y/n]").format(winner=winner, score=score)
        return _("Next: game {number} of {games}. Deal it? [Y/n]").format(
            number=self.match.played + 1, games=self.match.games
        )

    def next_match(self) -> None:
        """After the last game of a match, start another (the running score goes on)."""
        if self.match.over:
            self.match = self.match.rematch()

    def outcome_text(self, outcome: Outcome) -> str:
        """Who won and why, for the end-of-game banner."""
        them = self.their_name
        if outcome.reason is Reason.OUT:
            if outcome.winner == self.me:
                return _("You won by playing your last card.")
            return _("{name} won by playing their last card.").format(name=them)
        if outcome.reason is Reason.LAST_CARD:
            assert self.game is not None
            if not self.game.position.hand_sets[self.me]:
                text = _(
                    "Draw by the last-card rule: you went out, but {name}'s last card beats the top card."
                )
            else:
                text = _(
                    "Draw by the last-card rule: {name} went out, but your last card beats the top card."
                )
            return text.format(name=them)
        if outcome.reason is Reason.REPETITION:
            return _("Draw by repetition: the same position came up a third time.")
        if outcome.reason is Reason.MOVE_CAP:
            return _("Draw: the game reached the cap of {count} moves.").format(count=self.rules.max_moves)
        return _("Draw: both hands are empty.")

    def end(self, reason: Exception) -> str:
        """The game cannot go on: score a game awarded to a seat, and say what happened."""
        self.left = isinstance(reason, OpponentLeft)
        if isinstance(reason, OpponentLeft):
            why = str(reason) or _("{name} left").format(name=self.their_name)
            if reason.awarded is None:
                self.result = why
            elif reason.game is not None:
                self.result = self._overturn(why, reason.game, reason.awarded)
            else:
                self.result = self._award(why, reason.awarded)
        else:
            self.result = _("{name} failed: {error}").format(name=self.their_name, error=reason)
        self.game = None
        return self.result

    def _award(self, why: str, seat: int) -> str:
        self.match.award(self.dealer, seat)
        if seat == self.me:
            return _("{why}: you win by forfeit.").format(why=why)
        return _("{why}: {name} wins by forfeit.").format(why=why, name=self.their_name)

    def _overturn(self, why: str, game: int, seat: int) -> str:
        self.match.overturn(game, seat)
        if seat == self.me:
            return _("{why}: you win game {number} by forfeit, in place of its result.").format(why=why, number=game)
        return _("{why}: {name} wins game {number} by forfeit, in place of its result.").format(
            why=why, name=self.their_name, number=game
        )

    def quit_question(self, resumable: bool) -> str:
        """What quitting now costs: a forfeit, nothing (``resumable``: it can be continued), or the game."""
        if self.opponent.quit_forfeits:
            if self.match.games == 1:
                return _("Quit the game? {name} wins it by forfeit. [y/N]").format(name=self.their_name)
            after = self.match.with_award(1 - self.me)
            score = after.score_text(_("You"), self.their_name)
            if not after.decided:  # games left that could turn it: the match ends without a winner
                return _(
                    "Quit the game? {name} wins it by forfeit and the match ends after game {played} of "
                    "{games}, with no winner ({score}). [y/N]"
                ).format(name=self.their_name, played=after.played, games=after.games, score=score)
            return _(
                "Quit the game? {name} wins it by forfeit and the match ends: {outcome} ({score}). [y/N]"
            ).format(name=self.their_name, outcome=after.winner_text(self.their_name), score=score)
        if resumable:
            return _("Quit the game? It is saved: 'trumps' offers to continue it next time. [y/N]")
        return _("Quit the game? It stays in your history but cannot be continued. [y/N]")

    def _card(self, card: Card) -> str:
        return card_text(card, self.ascii)
