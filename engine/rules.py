"""The rule options of a game (rules.md: ``pickup``, ``sixes``, ``max_moves``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.errors import RulesError

PICKUP_CHOICES = ("forced", "voluntary")


@dataclass(frozen=True, slots=True)
class Rules:
    """The rule options both players agreed on.

    >>> Rules()
    Rules(pickup='forced', sixes=True, max_moves=1000)
    >>> Rules.parse(Rules(pickup="voluntary", sixes=False).notation())
    Rules(pickup='voluntary', sixes=False, max_moves=1000)
    """

    pickup: str = "forced"
    """``forced``: pick up only when no card beats the top; ``voluntary``: any time."""
    sixes: bool = True
    """Whether the sixes of the trump suits change hands after the deal."""
    max_moves: int = 1000
    """A game reaching this many moves without ending is a draw."""
    _hash: int = field(init=False, repr=False, compare=False)
    """Computed once: every position holds its rules, and positions are hashed all the time (the
    repetition count, the test solvers' tables). From ints and bools only, so that it is the same in
    every process (a pickled position keeps it)."""

    def __post_init__(self) -> None:
        if self.pickup not in PICKUP_CHOICES:
            raise RulesError(f"pickup must be 'forced' or 'voluntary', not {self.pickup!r}")
        if not isinstance(self.sixes, bool):
            raise RulesError(f"sixes must be true or false, not {self.sixes!r}")
        if (
            not isinstance(self.max_moves, int)
            or isinstance(self.max_moves, bool)
            or not 1 <= self.max_moves <= 1_000_000
        ):
            raise RulesError(f"max_moves must be a whole number 1-1000000, not {self.max_moves!r}")
        object.__setattr__(self, "_hash", hash((self.voluntary, self.sixes, self.max_moves)))

    def __hash__(self) -> int:
        return self._hash

    @property
    def voluntary(self) -> bool:
        """Whether a player may pick up while holding a card that beats."""
        return self.pickup == "voluntary"

    def notation(self) -> str:
        """One line, as in a game record: ``pickup=forced sixes=on max_moves=1000``."""
        return f"pickup={self.pickup} sixes={'on' if self.sixes else 'off'} max_moves={self.max_moves}"

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Read :meth:`notation`; options left out keep their defaults."""
        values: dict[str, str] = {}
        for item in text.split():
            key, sep, value = item.partition("=")
            if not sep or key not in ("pickup", "sixes", "max_moves") or key in values:
                raise RulesError(f"{item!r} is not a rule option (pickup=, sixes=, max_moves=)")
            values[key] = value
        sixes = values.get("sixes", "on")
        if sixes not in ("on", "off"):
            raise RulesError(f"sixes must be 'on' or 'off', not {sixes!r}")
        max_moves = values.get("max_moves", "1000")
        if not (max_moves.isascii() and max_moves.isdigit()) or len(max_moves) > 7:
            raise RulesError(f"max_moves must be a whole number, not {max_moves!r}")
        return cls(values.get("pickup", "forced"), sixes == "on", int(max_moves))
