"""The state object of the full-screen game, and every action a key can trigger.

A :class:`GameScreen` plays a :class:`~cli.app.match.MatchScore` between the person at
the terminal and an :class:`~cli.app.opponent.Opponent`. It holds what the
screen shows (the layout only reads it) and owns the move line's buffer. The
rules stay in the engine: the screen asks ``legal_moves``, ``play`` and
``Game.result``, and saves every game through :mod:`cli.storage`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document

from cli import config
from cli.app.ai_opponent import suggest
from cli.app.board import move_words
from cli.app.cards import (
    SUIT_NAMES,
    canonical_ranks,
    card_text,
    count_cards,
    face_letters,
    move_text,
    suit_text,
)
from cli.app.match import MatchScore
from cli.app.names import MY_NAME, shown_name
from cli.app.opponent import Deal, Opponent, OpponentLeft
from cli.app.resume import SavedGame
from cli.app.saving import Saver
from cli.i18n import _, ngettext
from engine import TAKE, Card, Game, Illegal, IllegalMoveError, Move, NotationError, Outcome, Reason, Rules
from engine.cards import SUITS
from engine.moves import split_cards

CHAT_KEPT = 100
"""Chat lines kept for the chat history."""
RESULT_GRACE = 0.7
"""Seconds after a game ends during which Enter does not yet start the next one,
so that a player who was typing fast still sees the result."""


MOVE_LINE_LENGTH = 300
"""The most characters the move line holds (a move, an answer or a chat line): pasting more
is cut there, so that a pasted page cannot freeze the input."""


def _cap_line(buffer: Buffer) -> None:
    if len(buffer.text) > MOVE_LINE_LENGTH:
        buffer.text = buffer.text[:MOVE_LINE_LENGTH]


@dataclass(frozen=True)
class Question:
    """A question answered on the move line: ``answers`` maps what may be typed to the answer."""

    prompt: str
    answers: dict[str, str]
    default: str
    action: Callable[[str], None]
    not_before: float = 0.0
    """The monotonic time before which an empty Enter is ignored."""
    labels: dict[str, str] = field(default_factory=dict)
    """How an answer is shown when it differs from the answer itself (``"yes"``: ``"так"``)."""

    def choices(self) -> list[str]:
        """The distinct answers as shown, for completion."""
        return [self.labels.get(a, a) for a in dict.fromkeys(self.answers.values())]


def yes_no(prompt: str, default: str, action: Callable[[str], None], not_before: float = 0.0) -> Question:
    """A yes/no question: ``y``, ``yes``, ``n``, ``no``, and the words of the language in use.

    ``default`` and the answers passed to ``action`` are ``"yes"`` or ``"no"``; the
    choices shown (completion, the reminder) are the translated words.
    """
    answers = {"y": "yes", "yes": "yes", "n": "no", "no": "no"}
    # Translators: the words (and one-letter forms) a player may type to answer a yes/no question.
    for word in _("y yes").lower().split():
        answers[word] = "yes"
    for word in _("n no").lower().split():
        answers[word] = "no"
    labels = {"yes": _("yes"), "no": _("no")}
    answers |= {label.lower(): answer for answer, label in labels.items()}
    return Question(prompt, answers, default, action, not_before, labels)


@dataclass
class Display:
    """How cards are drawn: letters instead of symbols, four suit colours, the colour theme
    (a name of :data:`cli.app.style.THEMES`)."""

    ascii: bool = False
    four_color: bool = False
    theme: str = "standard"


@dataclass
class GameScreen:
    """A match in play, and what the screen shows of it."""

    opponent: Opponent
    match: MatchScore
    rules: Rules = field(default_factory=Rules)
    trump: str | None = None
    """The local player's trump suit letter; asked for at the start when ``None``."""
    last_trump: str | None = None
    """The choice offered when asking (the one made last time)."""
    resume: SavedGame | None = None
    """A game to continue at once (``--resume``)."""
    offer: SavedGame | None = None
    """An unfinished game to offer at the start."""
    display: Display = field(default_factory=Display)
    notice: str = ""
    """A note about the start (the unfinished game could not be read, ...), kept on the chat line."""
    show_opponent: bool = True

    game: Game | None = None
    me: int = 0
    dealer: int = 0
    number: int = 0
    """Games dealt in this screen (what the opponent's ``deal`` counts)."""
    saver: Saver = field(default_factory=lambda: Saver(keeps_unfinished=True))
    """Saves the game; whether it holds the unfinished game decides if games can be resumed."""
    question: Question | None = None
    message: str = ""
    error: bool = False
    chat_lines: list[str] = field(default_factory=list)
    """The chat so far (and notes about the opponent), oldest first; the layout shows the last
    lines, as many as the window's height allows."""
    connection: str = ""
    """The connection status, in its own slot (empty: nothing to report)."""
    help_open: bool = False
    help_top: int = 0
    thinking_since: float | None = None
    cursor: int = 0
    highlighted: bool = False
    """Whether the player has moved the highlight (arrow keys) since their last move: only then
    does Enter on an empty line pick the highlighted card, so a stray Enter plays nothing."""
    picked: list[Card] = field(default_factory=list)
    result: str = ""
    """How the game just ended, in words (empty while it goes on)."""

    def __post_init__(self) -> None:
        self.buffer = Buffer(multiline=False, name="move-line", on_text_changed=_cap_line)
        self._invalidate: Callable[[], None] = lambda: None
        self._exit: Callable[[], None] = lambda: None
        self._bell: Callable[[], None] = lambda: None
        self._task: asyncio.Task[None] | None = None
        self._hint_task: asyncio.Task[None] | None = None
        self._ticker: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ life cycle

    def connect(
        self,
        invalidate: Callable[[], None],
        exit: Callable[[], None],
        bell: Callable[[], None] = lambda: None,
    ) -> None:
        """Give the screen the application's redraw, exit and the terminal's bell."""
        self._invalidate = invalidate
        self._exit = exit
        self._bell = bell

    def start(self) -> None:
        """The first question, or the first deal (call inside the running event loop)."""
        self.opponent.attach(self)
        if self.notice:
            self.chat(self.notice)
        if self.resume is not None:
            self._continue(self.resume)
        elif self.offer is not None:
            offer = self.offer
            self.ask(
                yes_no(
                    _("Continue your unfinished game against {name}, at move {number}? [Y/n]").format(
                        name=shown_name(offer.opponent.name), number=len(offer.game.moves) + 1
                    ),
                    "yes",
                    lambda answer: self._continue(offer) if answer == "yes" else self._decline(offer),
                )
            )
        else:
            self._choose_trump()

    def close(self) -> None:
        """Leave: the game is already saved; drop the tasks and tell the opponent."""
        for task in (self._task, self._hint_task, self._ticker):
            if task is not None:
                task.cancel()
        self.opponent.close()

    def _continue(self, resume: SavedGame) -> None:
        self.offer = self.resume = None
        self.opponent = resume.opponent
        self.opponent.attach(self)
        self.match, self.me, self.saver.path = resume.match, resume.me, resume.path
        self.rules = resume.game.start.rules
        self.game = resume.game
        self.dealer = int(resume.game.headers.get("Dealer", "0"))
        self.trump = SUITS[resume.game.start.trumps[self.me]]
        self.number = 1
        self._say(
            _("Welcome back: your game continues.")
            if self.match.games == 1
            else _("Welcome back: game {number} of {games} continues.").format(
                number=self.match.number, games=self.match.games
            )
        )
        self._advance()

    def _decline(self, offer: SavedGame) -> None:
        self.offer = None
        self.saver.forget_unfinished()
        self._say(_("The unfinished game stays in your history ({file}).").format(file=offer.path.name))
        self._choose_trump()

    def _choose_trump(self) -> None:
        if self.trump is not None:
            self._trump_chosen(self.trump)  # given on the command line: also the next "last choice"
            return
        answers = {s.lower(): s for s in SUITS}
        answers |= {suit_text(i): s for i, s in enumerate(SUITS)}
        answers |= {name: s for name, s in zip(SUIT_NAMES, SUITS, strict=True)}
        answers |= {_(name).lower(): s for name, s in zip(SUIT_NAMES, SUITS, strict=True)}
        default = self.last_trump if self.last_trump in tuple(SUITS) else "H"
        shown = " ".join(f"{s} {suit_text(i, self.display.ascii)}" for i, s in enumerate(SUITS))
        self.ask(
            Question(
                _("Your trump suit? {suits} [Enter: {default}, your last choice]").format(
                    suits=shown, default=default
                )
                if default == self.last_trump
                else _("Your trump suit? {suits} [Enter: {default}]").format(suits=shown, default=default),
                answers,
                default,
                self._trump_chosen,
            )
        )

    def _trump_chosen(self, suit: str) -> None:
        self.trump = suit
        with contextlib.suppress(OSError):
            config.save_config(trump=suit)
        self._deal()

    def _deal(self) -> None:
        self.number += 1
        assert self.trump is not None
        self._run(self._deal_task(self.number, self.match.next_dealer, self.trump))

    async def _deal_task(self, number: int, dealer: int | None, trump: str) -> None:
        self._say(_("Dealing…"))
        try:
            self._start_game(await self.opponent.deal(number, dealer, trump))
        except Exception as exc:  # a plug-in opponent's failure ends the game, never the app
            self.end(exc)

    def _start_game(self, deal: Deal) -> None:
        names = [self.opponent.name, self.opponent.name]
        names[deal.me] = MY_NAME
        self.me, self.dealer = deal.me, deal.dealer
        self.match.me = deal.me  # the score reads the local player's seat from the match
        self.game = Game.from_deal(
            deal.seed,
            deal.dealer,
            deal.trumps,
            self.rules,
            Date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
            Players=f"{names[0]} vs {names[1]}",
            Match=f"game {self.match.number} of {self.match.games}",
        )
        self.saver.new_game()
        self.result = ""
        self.picked.clear()
        self.cursor = 0
        self.highlighted = False
        if self.match.games == 1:
            text = _("Your game: you dealt.") if deal.dealer == self.me else _("Your game: {name} dealt.")
        elif deal.dealer == self.me:
            text = _("Game {number} of {games}: you dealt.")
        else:
            text = _("Game {number} of {games}: {name} dealt.")
        self._say(text.format(number=self.match.number, games=self.match.games, name=self.their_name))
        self._save()
        self._advance()

    # ------------------------------------------------------------- the game

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
    def game_number(self) -> int:
        """The number in the match of the game on the board."""
        if self.game is not None and self.game.result is not None:
            return self.match.played
        return self.match.number

    def marked_cards(self) -> list[Card]:
        """The cards picked, or those of the move on the move line: the hand shows them marked."""
        if self.picked or not self.buffer.text.strip():
            return self.picked
        try:
            return list(self.parse(self.buffer.text).cards)
        except NotationError:
            return []

    def my_hand(self) -> tuple[Card, ...]:
        """The local player's cards, sorted by suit and rank."""
        return self.game.position.hand(self.me) if self.game else ()

    def legal_cards(self) -> set[Card]:
        """The cards that start a legal move now (empty when it is not the local player's turn)."""
        if not self.my_turn:
            return set()
        assert self.game is not None
        return {
            m.cards[len(self.picked)] for m in self._moves_from_picked() if len(m.cards) > len(self.picked)
        }

    def _moves_from_picked(self) -> list[Move]:
        assert self.game is not None
        count = len(self.picked)
        return [m for m in self.game.position.legal_moves() if list(m.cards[:count]) == self.picked]

    def _advance(self) -> None:
        game = self.game
        assert game is not None
        if game.result is not None:
            self._finish(game.result)
        elif game.position.turn != self.me:
            self._run(self._opponent_move(game, len(game.moves)))
        else:
            self._settle_cursor()
        self._invalidate()

    async def _opponent_move(self, game: Game, ply: int) -> None:
        self.thinking_since = time.monotonic()
        self._ticker = asyncio.ensure_future(self._tick())
        try:
            move = await self.opponent.move(game)
        except Exception as exc:  # a plug-in opponent's failure ends the game, never the app
            self.end(exc)
            return
        finally:
            self.thinking_since = None
            self._ticker.cancel()
        if game is not self.game or len(game.moves) != ply:
            return  # undone or abandoned meanwhile
        try:
            game.play(move)
        except IllegalMoveError:
            reason = _("{name} played an illegal move ({move}).").format(name=self.their_name, move=move)
            self.end(OpponentLeft(reason))
            return
        self._say(move_words(game, len(game.moves), self.their_name, self.display.ascii))
        self._save()
        if self.opponent.rings and game.result is None and game.position.turn == self.me:
            self._bell()  # your turn: a friend's move may take a while, and you may look elsewhere
        self._advance()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0.2)
            self._invalidate()

    def _finish(self, outcome: Outcome) -> None:
        assert self.game is not None
        self.match.finish_game(self.dealer, outcome)
        self.result = self.outcome_text(outcome)
        self._save(finished=True)
        if self.match.over and self.match.games == 1:
            prompt = _("Play again? [Y/n]")
        elif self.match.over:
            score = self.match.score_text(_("You"), self.their_name)
            winner = self.match.winner_text(self.their_name)
            prompt = _("{winner} ({score}). Play another match? [Y/n]").format(winner=winner, score=score)
        else:
            prompt = _("Next: game {number} of {games}. Deal it? [Y/n]").format(
                number=self.match.played + 1, games=self.match.games
            )
        self.ask(yes_no(prompt, "yes", self._after_game, time.monotonic() + RESULT_GRACE))

    def _after_game(self, answer: str) -> None:
        if answer == "no":
            self._exit()
            return
        if self.match.over:
            self.match = self.match.rematch()
        self._deal()

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

    def end(self, reason: Exception) -> None:
        """The opponent cannot go on: end the game, scoring a game awarded to a seat.

        Also what a failing ``deal`` or ``move`` leads to; a pending one is cancelled.
        """
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        if self.game is not None and self.game.result is not None:  # the result stays on the board
            self._say(str(reason), error=True)
            return
        self._save()
        if isinstance(reason, OpponentLeft):
            why = str(reason) or _("{name} left").format(name=self.their_name)
            self.result = self._award_text(why, reason.awarded) if reason.awarded is not None else why
        else:
            self.result = _("{name} failed: {error}").format(name=self.their_name, error=reason)
        self.game = None
        self._say(self.result, error=True)
        self.ask(yes_no(_("The game cannot go on. Quit? [Y/n]"), "yes", self._quit_answer))

    def _award_text(self, why: str, seat: int) -> str:
        """Score the game ``seat`` is awarded, and say who won it and why."""
        self.match.award(self.dealer, seat)
        if seat == self.me:
            return _("{why}: you win by forfeit.").format(why=why)
        return _("{why}: {name} wins by forfeit.").format(why=why, name=self.their_name)

    def offer_claim(self, why: str | None) -> None:
        """Ask whether to claim the game while the peer is away (``None``: it is back)."""
        asking = self.question is not None and self.question.action == self._claim_answer
        if why is None and asking:
            self.question = None
            self.buffer.reset()
            self._say("")
        elif why is not None and self.question is None and self.in_progress:
            self.ask(yes_no(_("{why} — claim the game? [y/N]").format(why=why), "no", self._claim_answer))

    def _claim_answer(self, answer: str) -> None:
        if answer == "yes" and not self.opponent.claim():
            self._say(_("{name} is back: the game goes on.").format(name=self.their_name), error=True)

    # --------------------------------------------------------------- saving

    def _save(self, finished: bool = False) -> None:
        if self.game is None:
            return
        try:
            self.saver.save(self.game, self.match, self.me, self.opponent.resume_as, finished)
        except OSError as exc:
            self._say(_("Could not save the game: {error}").format(error=exc), error=True)

    # ---------------------------------------------------------- the move line

    def enter(self) -> None:
        """Enter on the move line: answer the question, pick the highlighted card, or play the text."""
        text = self.buffer.text
        if self.question is not None:
            self._answer(text)
        elif text.startswith('"'):
            self.opponent.say(text[1:].strip())
            self.buffer.reset()
        elif not text and self.my_turn and self._only_take():
            self._play(TAKE)
        elif text == self.picked_text():
            hand = self.my_hand()
            if not (self.my_turn and hand):
                self._not_now()
            elif self.highlighted:
                self.pick(hand[min(self.cursor, len(hand) - 1)])
            else:
                self._say(_("Type a move, or choose a card with ←/→ and press Enter (Tab suggests one)."))
        else:
            self.submit(text)
        self._invalidate()

    def _only_take(self) -> bool:
        assert self.game is not None
        return self.game.position.legal_moves() == [TAKE]

    def click_pile(self, card: Card) -> None:
        """A click on the pile takes, when taking is allowed (a card held to beat with is put back)."""
        if not self.my_turn:
            self._not_now()
            return
        assert self.game is not None
        if self.game.position.is_legal(TAKE):
            self.picked.clear()
            self._play(TAKE)
        else:
            self._say(
                _("You cannot take now: a card of yours beats the top card (forced pick-up)."), error=True
            )

    def submit(self, text: str) -> None:
        """Play the move typed on the move line, or explain in one line why not."""
        if not self.my_turn:
            self._not_now()
            return
        assert self.game is not None
        try:
            move = self.parse(text)
        except NotationError as exc:
            self._say(str(exc), error=True)
            return
        self._play(move)

    def _is_take(self, text: str) -> bool:
        """Whether the move line asks to take, after any card held to beat with (``KS take``)."""
        typed = text.removeprefix(self.picked_text()).strip().lower()
        return typed in ("take", _("take").lower())

    def parse(self, text: str) -> Move:
        """A move from the move line: notation (``ks 6h``, ``K♠,6♥``, ``take``, the language's
        rank letters and word for take) read by ``engine.Move.parse``, or card numbers (``3 7``).

        The :class:`NotationError` raised says what is wrong, for the screen.
        """
        numbers = text.replace(",", " ").split()
        if numbers and all(re.fullmatch("[0-9]+", n) for n in numbers):
            cards = self._numbered_cards(numbers)
            if len(cards) == 2 and cards[0] == cards[1]:
                raise NotationError(_("A move cannot play the same card twice."))
            if len(cards) > 2:
                raise NotationError(self._not_a_move(text))
            return Move(*cards)
        if self._is_take(text):
            return TAKE
        try:
            return Move.parse(canonical_ranks(text))
        except NotationError:
            raise NotationError(self._why_not_a_move(text)) from None

    def _why_not_a_move(self, text: str) -> str:
        """What is wrong with a written move that ``Move.parse`` refused, in the player's words."""
        parts = split_cards(text)
        if parts[0].lower() in ("take", _("take").lower()):
            game = self.game
            cards = count_cards(game.position.take_count()) if game is not None and game.result is None else "?"
            return _("{text!r}: a pick-up takes what the rules say ({cards} now); type take alone.").format(
                text=text.strip(), cards=cards
            )
        for part in parts:
            if part:
                try:
                    Card.parse(canonical_ranks(part))
                except NotationError:
                    return self._not_a_card(part)
        if len(parts) == 2 and parts[0].upper() == parts[1].upper():
            return _("A move cannot play the same card twice.")
        return self._not_a_move(text)

    def _not_a_move(self, text: str) -> str:
        return _("{text!r} is not a move: try take, 7♣, 8♣ 9♦, or card numbers: 3 7.").format(
            text=text.strip()
        )

    def _numbered_cards(self, numbers: list[str]) -> list[Card]:
        hand = self.my_hand()
        for n in numbers:
            if len(n) > 3 or not 1 <= int(n) <= len(hand):  # int() refuses 4300 digits and more
                raise NotationError(
                    _("There is no card {number}: your cards are numbered 1 to {count}.").format(
                        number=n, count=len(hand)
                    )
                )
        return [hand[int(n) - 1] for n in numbers]

    def _not_a_card(self, text: str) -> str:
        faces = face_letters()
        ranks = "6-10 J Q K A" if faces == "JQKA" else f"6-10 {' '.join(faces)}"
        return _("{text!r} is not a card: a rank {ranks} and a suit S H D C.").format(text=text, ranks=ranks)

    def _play(self, move: Move) -> None:
        game = self.game
        assert game is not None
        reason = game.position.why_illegal(move)
        if reason is not None:
            self._say(self._refusal(move, reason), error=True)
            return
        game.play(move)
        self.buffer.reset()
        self.picked.clear()
        self.highlighted = False
        self.opponent.played(game, move)
        self._say(move_words(game, len(game.moves), None, self.display.ascii))
        self._save()
        self._advance()

    def pick(self, card: Card) -> None:
        """Choose a card by arrow keys, digits or mouse: play it, or hold it as the beating card."""
        if not self.my_turn:
            self._not_now()
            return
        assert self.game is not None
        chosen = [*self.picked, card]
        moves = [m for m in self._moves_from_picked() if len(m.cards) > len(self.picked)]
        complete = [m for m in moves if list(m.cards) == chosen]
        if complete:
            self._play(complete[0])
            return
        if any(list(m.cards[: len(chosen)]) == chosen for m in moves):
            self.picked = chosen
            self.buffer.set_document(Document(self.picked_text()))
            top = self.game.position.top
            assert top is not None
            self._say(
                _("{card} beats {top}: now the card to lay on it (Esc: choose again).").format(
                    card=self._card(card), top=self._card(top)
                )
            )
            return
        if self.picked:  # the held card chosen again
            self._say(_("That card cannot be played now."), error=True)
            return
        single = Move(card)
        reason = self.game.position.why_illegal(single)
        assert reason is not None  # a legal single card was played above
        self._say(self._refusal(single, reason), error=True)

    def _refusal(self, move: Move, reason: Illegal) -> str:
        """Why the engine refuses ``move`` (its :meth:`~engine.Position.why_illegal`), in the player's words."""
        assert self.game is not None
        position = self.game.position
        top = position.top
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
        if reason is Illegal.NO_BEAT and self._only_take():
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

    def picked_text(self) -> str:
        """The move line's text while cards are being picked (empty, or ``KS ``)."""
        return "".join(f"{c} " for c in self.picked)

    def unpick(self) -> None:
        """Esc: forget the picked cards, the error and the move line."""
        self.picked.clear()
        self.buffer.reset()
        self._say("")

    def move_cursor(self, step: int) -> None:
        """Arrow keys: highlight the next or previous card of your hand (the first press shows
        the highlight where it stands)."""
        hand = self.my_hand()
        if hand and not self._show_highlight():
            self.cursor = (self.cursor + step) % len(hand)

    def move_to_playable(self, step: int) -> None:
        """Up and down arrows: highlight the previous or next card that can be played."""
        hand = self.my_hand()
        legal = self.legal_cards()
        if self._show_highlight():
            return
        for distance in range(1, len(hand) + 1):
            index = (self.cursor + step * distance) % len(hand)
            if hand[index] in legal:
                self.cursor = index
                return

    def _show_highlight(self) -> bool:
        """Show the highlight if it was hidden; whether it was."""
        hidden = not self.highlighted
        self.highlighted = True
        return hidden

    def _settle_cursor(self) -> None:
        """Keep the highlight on a card that can be played, when there is one."""
        hand = self.my_hand()
        legal = self.legal_cards()
        if not hand:
            return
        self.cursor = min(self.cursor, len(hand) - 1)
        if legal and hand[self.cursor] not in legal:
            self.cursor = next(i for i, c in enumerate(hand) if c in legal)

    # --------------------------------------------------------------- answers

    def ask(self, question: Question) -> None:
        """Put a question on the move line."""
        self.question = question
        self.buffer.reset()
        self._invalidate()

    def _answer(self, text: str) -> None:
        question = self.question
        assert question is not None
        typed = text.strip()
        if not typed:
            if time.monotonic() < question.not_before:
                return
            answer: str | None = question.default
        else:
            answer = question.answers.get(typed.lower())
        if answer is None:
            options = "/".join(question.choices())
            default = question.labels.get(question.default, question.default)
            self._say(
                _("Please answer {options} (or just Enter for {default}).").format(
                    options=options, default=default
                ),
                error=True,
            )
            return
        self.question = None
        self.buffer.reset()
        self._say("")
        question.action(answer)

    # ------------------------------------------------------------------ keys

    def hint(self) -> None:
        """Ask the strongest AI level what it would play; the move goes on the move line."""
        if not self.my_turn:
            self._not_now()
            return
        assert self.game is not None
        self._hint_task = asyncio.ensure_future(self._hint(self.game))

    async def _hint(self, game: Game) -> None:
        self._say(_("Thinking of a hint…"))
        position = game.position
        move = await asyncio.get_running_loop().run_in_executor(None, suggest, game)
        if game is self.game and game.position is position:  # nothing played or undone meanwhile
            self.picked.clear()
            self.buffer.set_document(Document(str(move)))
            self._say(
                _("Hint: {move} — press Enter to play it.").format(move=move_text(move, self.display.ascii))
            )

    def undo(self) -> None:
        """Take back your last move (and the opponent's reply to it)."""
        game = self.game
        if not self.opponent.local:
            self._say(_("Undo is only for games against the AI."), error=True)
            return
        if game is None or game.result is not None:
            self._say(_("The game is over: nothing to undo."), error=True)
            return
        count = 0
        for ply in range(len(game.moves) - 1, -1, -1):
            count += 1
            if game.positions[ply].turn == self.me:
                break
        else:
            self._say(_("Nothing to undo yet."), error=True)
            return
        if self._task is not None:
            self._task.cancel()
        game.undo(count)
        self.picked.clear()
        self.buffer.reset()
        self._say(ngettext("Took back {count} move.", "Took back {count} moves.", count).format(count=count))
        self._save()
        self._advance()

    def new_game(self) -> None:
        """Deal a new game (the current one, if any, is saved as abandoned)."""
        if self.question is not None and self.game is not None and self.game.result is not None:
            self._answer("yes")
            return
        if self.in_progress and not self.opponent.local:
            self._say(_("A network game cannot be abandoned for a new one."), error=True)
            return
        if self.in_progress:
            self.ask(yes_no(_("Abandon this game and deal a new one? [y/N]"), "no", self._abandon_answer))
        elif self.question is None:
            self._deal()

    def _abandon_answer(self, answer: str) -> None:
        if answer == "yes":
            if self._task is not None:
                self._task.cancel()
            self._save(finished=True)
            path = self.saver.path
            self._say(_("Abandoned game saved as {file}.").format(file=path.name if path else ""))
            self.game = None
            self._deal()
        else:
            self._say("")

    def quit(self) -> None:
        """Leave; mid-game, ask first (a game against the AI is offered again next time)."""
        if self.question is not None and self.question.action == self._quit_answer:
            self._quit_answer("yes")
        elif self.in_progress:
            self.ask(yes_no(self._quit_question(), "no", self._quit_answer))
        else:
            self._exit()

    def _quit_question(self) -> str:
        """What quitting now costs: a forfeit, or nothing (the game can be continued), or the game."""
        if self.opponent.quit_forfeits:
            if self.match.games == 1:
                return _("Quit the game? {name} wins it by forfeit. [y/N]").format(name=self.their_name)
            after = self.match.with_award(1 - self.me)
            return _(
                "Quit the game? {name} wins it by forfeit and the match ends: {outcome} ({score}). [y/N]"
            ).format(
                name=self.their_name,
                outcome=after.winner_text(self.their_name),
                score=after.score_text(_("You"), self.their_name),
            )
        if self.saver.resumes(self.opponent.resume_as):
            return _("Quit the game? It is saved: 'trumps' offers to continue it next time. [y/N]")
        return _("Quit the game? It stays in your history but cannot be continued. [y/N]")

    def _quit_answer(self, answer: str) -> None:
        if answer == "yes":
            self._exit()
        elif self.game is None:
            self._say(_("F5 deals a new game, Ctrl-Q quits."))
        else:
            self._say("")

    def toggle_opponent(self) -> None:
        """Hide or show the opponent's hand."""
        self.show_opponent = not self.show_opponent
        with contextlib.suppress(OSError):
            config.save_config(show_opponent="yes" if self.show_opponent else "no")

    def toggle_help(self) -> None:
        """Open or close the help screen."""
        self.help_open = not self.help_open
        self.help_top = 0

    def scroll_help(self, lines: int) -> None:
        """Scroll the help screen (the layout keeps it within the text)."""
        self.help_top = max(0, self.help_top + lines)

    # ----------------------------------------------------------------- chat

    def chat(self, text: str) -> None:
        """Show a chat line from or about the opponent (see :class:`~cli.app.opponent.Table`)."""
        self.chat_lines.append(text)
        del self.chat_lines[:-CHAT_KEPT]
        self._invalidate()

    def status(self, text: str) -> None:
        """Show the connection status in its slot; chat does not overwrite it."""
        self.connection = text
        self._invalidate()

    # -------------------------------------------------------------- helpers

    def _run(self, coroutine: Coroutine[None, None, None]) -> None:
        self._task = asyncio.ensure_future(coroutine)

    def explain_no_completion(self) -> None:
        """Tab found nothing to fill in: say why."""
        if self.question is not None or self.my_turn:
            self._say(_("Nothing legal starts like that: Esc clears the line."), error=True)
        else:
            self._not_now()

    def _not_now(self) -> None:
        if self.thinking_since is not None:
            self._say(_("Wait: {name} is thinking.").format(name=self.their_name), error=True)
        elif self.game is None or self.game.result is not None:
            self._say(_("No game in play: answer the question below."), error=True)
        else:
            self._say(_("Wait: it is {name}'s turn.").format(name=self.their_name), error=True)

    def _say(self, text: str, error: bool = False) -> None:
        self.message, self.error = text, error
        self._invalidate()

    def _card(self, card: Card) -> str:
        return card_text(card, self.display.ascii)
