"""Exact proofs: whether the side to move wins, draws or loses, endless play counting as a draw.

The proof asks two yes/no questions with the values win 1, draw 0, loss -1:
*is the value at least 1* (a win) and *is it at least 0* (not a loss); a
position that is neither a win nor a loss is a proven draw. Each question is
a null-window search over those three values with nothing else in it: no
evaluation, only moves, the rules of going out and repetition. In each search
one side attacks (wants the answer to go its way, a win for itself) and the
other defends, and a leaf the search cannot settle — the depth ran out, or the
line came back to a position on the search path — goes to the defender.

The two questions deepen each on its own (iterative deepening, forced pick-ups
cost no depth), and the one whose next iteration looks cheaper goes first: with
thirty cards against three, trying to win for the thirty is dear and vain, while
their loss may be four choices deep. Asking both at every depth in turn spent the
budget on the first.

Why that is exact, and what the table may keep:

- *An attacker's success is a real forced win*, whatever the path: its proof
  tree has no repetition and no horizon under it (those went to the defender),
  so it holds wherever the position comes up and is stored for good, with its
  length (the choices in its longest line) so that an iterative deepening
  finds the shortest one and a winner never comes back to a position.
- *A lock* is a win without search: on an empty pile, when the other beats none
  of the mover's cards, the mover leads them one by one (:func:`safe_lead`) and
  the other picks each up. It counts as no choices, so the search goes deeper.
- *A defender's success* may rest on a horizon (then it holds to that depth:
  a shallower search gives the attacker no more room) or on repetitions of
  positions above it on the path (its *taint*: the set of those positions).
  A repetition only ever helps the defender, so the result holds again on any
  path that holds all of its taint; the table keeps the set and checks it.
  This is what lets a draw by repetition be proven at all: the same cycle is
  met from many lines, and each meets the stored result instead of searching
  the cycle again.

A line that comes back to a position on its own path is a draw here, though in
the game it would be the position's second occurrence; a position the game has
already seen twice is a draw when a line reaches it (its third). docs/ai.md
argues why the values are the game's, and the tests check them against an
exhaustive solver.

>>> from engine import Position
>>> from engine.ai.board import move_of
>>> proof = prove(Position.from_notation("9HJHQHKD/TC/8H SH 0"), nodes=20_000)
>>> proof.value == WIN, str(move_of(proof.move)) in ("9H,JH", "9H,KD", "JH,9H", "JH,KD")  # the others lose
(True, True)
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

from engine.ai.board import SuitSwap, child, ordered_moves, pile_code, root_codes, shared_key, suit_swap
from engine.ai.evaluation import SUIT_MASKS, unbeatable
from engine.ai.greedy import COSTS
from engine.cards import BEATERS
from engine.errors import IllegalMoveError
from engine.position import Position

WIN, DRAW, LOSS = 1, 0, -1
SOLVED = 1 << 20
"""The depth of a defender's success that met no horizon: it holds at any depth."""
MAX_DEPTH = 200
MAX_PLY = 400  # deeper lines are a horizon: Python's stack is finite
CACHE_LIMIT = 400_000
"""Entries a :class:`ProofCache` keeps between searches before it starts afresh (memory)."""
_CHECK_EVERY = 256
_ACE = 8
_FLIPPED = -1  # in the taint a flipped node stores (and always on the path: no position's key)

# A table entry: what is known about the value, each bound with the depth it holds to and its taint.
#   lower 1: a win in `lower_depth` choices; lower 0: not a loss (to `lower_depth`, given the taint)
#   upper -1: a loss in `upper_depth` choices; upper 0: not a win (to `upper_depth`, given the taint)
#   best: the move that last proved the lower bound (or -1), tried first.
Entry = tuple[int, int, "frozenset[int] | None", int, int, "frozenset[int] | None", int]
_UNKNOWN: Entry = (-1, 0, None, 1, 0, None, -1)
_NO_TAINT: set[int] | None = None
"""A taint reset to none, typed as a taint: the recursive calls set ``taint`` again, so mypy (and
mypyc, which checks types as it runs) must not take it for ``None`` after the reset."""


class _Aborted(Exception):
    """The budget ran out in the middle of a proof."""


@dataclass(frozen=True, slots=True)
class Proof:
    """What a proof search settled about a position, from the mover's point of view."""

    value: int | None
    """``WIN``, ``DRAW`` or ``LOSS`` when proven, else ``None``."""
    move: int
    """A move code that keeps the proven value (the shortest win), or -1."""
    length: int
    """For a win or a loss, the choices in the longest line of its proof."""
    depth: int
    """The depth (in choices) to which both questions were searched without an answer; a question
    answered "no" with no horizon met counts as searched to any depth."""
    nodes: int
    losing: frozenset[int]
    """Move codes proven to lose (found on the way; not necessarily all of them)."""


class ProofCache:
    """Proofs kept across the searches of one game; the caller owns it.

    The proofs hold for one pair of trumps, one pick-up rule and one set of
    positions the game has seen twice (reaching those again is a draw), so a
    search with any other starts the cache afresh (and within 400 moves of the
    move cap a search keeps to its own table). With the same cache given the
    same searches, every result is the same.
    """

    def __init__(self) -> None:
        self._context: object = None
        self.table: dict[int, Entry] = {}

    def table_for(self, context: object) -> dict[int, Entry]:
        """The table for searches in ``context``: emptied if the context changed; once it has grown
        past :data:`CACHE_LIMIT`, only the settled results (wins, losses, bounds that met no
        horizon and no repetition) stay."""
        if context != self._context:
            self._context = context
            self.table = {}
        elif len(self.table) > CACHE_LIMIT:
            self.table = {key: entry for key, entry in self.table.items() if _settled(entry)}
            if len(self.table) > CACHE_LIMIT // 2:
                self.table = {}
        return self.table


def _settled(entry: Entry) -> bool:
    lower, lower_depth, lower_taint, upper, upper_depth, upper_taint, _ = entry
    return (
        lower == 1
        or upper == -1
        or (lower == 0 and lower_depth == SOLVED and lower_taint is None)
        or (upper == 0 and upper_depth == SOLVED and upper_taint is None)
    )


def prove(
    position: Position,
    history: Sequence[Position] = (),
    seconds: float | None = None,
    nodes: int | None = None,
    cache: ProofCache | None = None,
    deadline: float | None = None,
) -> Proof:
    """Try to prove the value of ``position`` within ``seconds`` (or until ``deadline``) and/or ``nodes``.

    ``history`` holds the game's earlier positions, for the repetition rule.
    With ``nodes`` alone (and the same ``cache`` state) the result is deterministic.
    """
    if position.is_over:
        raise IllegalMoveError(f"no move to prove in {position.notation()}: the game is over")
    if seconds is not None:
        deadline = (
            time.perf_counter() + seconds
            if deadline is None
            else min(deadline, time.perf_counter() + seconds)
        )
    trumps = position.trumps
    beaters = (BEATERS[trumps[0]], BEATERS[trumps[1]])
    costs = (COSTS[trumps[0]], COSTS[trumps[1]])
    voluntary = position.rules.voluntary
    seen = Counter(map(proof_key, history))
    twice = frozenset(key for key, times in seen.items() if times >= 2)
    # The table keeps a position and its twin under the swap of the free suits (an exact symmetry)
    # under one key (SuitSwap.table_key); a node that is the twin of its key is "flipped" and swaps
    # the moves it reads and writes there.
    swap = suit_swap(trumps)
    low, shift, keep, swapped = swap
    # Positions on the search path; those the game has seen twice stay on it for good (a third time
    # draws), and so does _FLIPPED, which marks the taints a flipped node stored.
    path: set[int] = {*twice, _FLIPPED}
    cap = position.rules.max_moves - len(history)
    stop_ply = min(cap, MAX_PLY)
    context = (trumps, voluntary, twice)
    # Near the move cap a win from an earlier search may no longer fit: then only this search's own.
    table = cache.table_for(context) if cache is not None and cap > MAX_PLY else {}
    get = table.get
    killers = [-1] * (MAX_PLY + 1)

    count = 0
    next_check = _CHECK_EVERY if nodes is None else min(_CHECK_EVERY, nodes)
    hit = False  # whether the result being computed met a horizon
    taint: set[int] | None = None  # positions above the node that its result repeated
    length = 0  # the length of the attacker's success just computed

    def check() -> None:
        nonlocal next_check
        next_check = count + _CHECK_EVERY
        if nodes is not None:
            if count >= nodes:
                raise _Aborted
            next_check = min(next_check, nodes)
        if deadline is not None and time.perf_counter() >= deadline:
            raise _Aborted

    def at_least(
        me: int, opp: int, pile: int, twin_pile: int, turn: int, b: int, depth: int, ply: int
    ) -> bool:
        """Whether the mover's value is at least ``b`` (1: a win, 0: not a loss) within ``depth``;
        ``twin_pile`` is the pile with the free suits swapped."""
        nonlocal count, hit, taint, length
        count += 1
        if count >= next_check:
            check()
        key = pile << 73 | turn << 72 | opp << 36 | me
        if key in path:
            if taint is None:
                taint = {key}
            else:
                taint.add(key)
            return not b  # a repetition goes to the defender
        if ply >= stop_ply:
            hit = True
            return not b
        table_key = shared_key(key, me, opp, pile, twin_pile, turn, low, shift, keep)
        flipped = table_key != key
        entry = get(table_key, _UNKNOWN)
        lower, lower_depth, lower_taint, upper, upper_depth, upper_taint, best = entry
        if flipped and best > 0:
            best = swapped[best]
        # A taint holds the positions of the path it was found on, so it serves only the node it was
        # found at (the same frame: _FLIPPED in it for a flipped node), not that node's twin.
        if b:
            if lower == 1 and lower_depth <= depth:
                length = lower_depth
                return True
            if upper == -1:
                return False
            if (
                upper == 0
                and upper_depth >= depth
                and (upper_taint is None or (upper_taint <= path and (_FLIPPED in upper_taint) is flipped))
            ):
                if upper_depth < SOLVED:
                    hit = True
                if upper_taint:
                    taint = set(upper_taint) if taint is None else taint | upper_taint
                    taint.discard(_FLIPPED)
                return False
        else:
            if upper == -1 and upper_depth <= depth:
                length = upper_depth
                return False
            if lower == 1:
                return True
            if (
                lower == 0
                and lower_depth >= depth
                and (lower_taint is None or (lower_taint <= path and (_FLIPPED in lower_taint) is flipped))
            ):
                if lower_depth < SOLVED:
                    hit = True
                if lower_taint:
                    taint = set(lower_taint) if taint is None else taint | lower_taint
                    taint.discard(_FLIPPED)
                return True
        if not pile and unbeatable(me, opp, trumps[1 - turn]) == me.bit_count():
            # A lock: the other beats none of the mover's cards, so leading them all wins (safe_lead).
            lead = safe_lead(me, trumps[1 - turn])
            table[table_key] = (1, 0, None, upper, upper_depth, upper_taint, swapped[lead] if flipped else lead)
            length = 0
            return True
        mine = beaters[turn]
        theirs = beaters[1 - turn]
        codes: Iterable[int]
        if pile and not me & mine[(pile & 63) - 1]:
            cost = 0  # a forced pick-up costs no depth
            codes = (0,)
        else:
            if depth <= 0:
                hit = True
                return not b
            cost = 1
            beat_set = me & mine[(pile & 63) - 1] if pile else 0
            killer = killers[ply]
            if killer == best or not (
                (beat_set >> ((killer >> 6) - 1) & 1 and me >> ((killer & 63) - 1) & 1)
                if killer >= 64
                else not pile and killer > 0 and me >> (killer - 1) & 1
            ):
                killer = -1
            first = tuple(c for c in (best, killer) if c >= 0)
            rest = ordered_moves(me, opp, beat_set, theirs, costs[turn], voluntary, best, killer)
            codes = chain(first, rest) if first else rest
        hit_above, taint_above = hit, taint
        hit, taint = False, _NO_TAINT
        child_depth = depth - cost
        longest = 0
        success = False  # whether the attacker succeeded here
        path.add(key)
        for code in codes:
            # The child position, inlined (this loop is where the proof spends its time).
            if code == 0:
                top = (pile & 63) - 1
                taking = 3 if top // 9 != trumps[turn] else 36 if top % 9 == _ACE else 5
                me2 = me
                pile2 = pile
                twin_pile2 = twin_pile
                while taking and pile2:
                    me2 |= 1 << ((pile2 & 63) - 1)
                    pile2 >>= 6
                    twin_pile2 >>= 6
                    taking -= 1
            elif code < 64:
                me2 = me ^ (1 << (code - 1))
                pile2 = pile << 6 | code
                twin_pile2 = twin_pile << 6 | swapped[code]
            else:
                me2 = me ^ (1 << ((code >> 6) - 1)) ^ (1 << ((code & 63) - 1))
                pile2 = pile << 12 | code
                twin_pile2 = twin_pile << 12 | swapped[code]
            if not me2:
                # Out: a win, or a draw if the other's single card beats the new top.
                drawn = not opp & (opp - 1) and opp & theirs[(pile2 & 63) - 1]
                if b and not drawn:
                    success, best, longest = True, code, 0
                    break
                if not b:
                    success = False  # the defender is safe (a win or a draw)
                    best = code
                    break
                continue
            if at_least(opp, me2, pile2, twin_pile2, 1 - turn, 1 - b, child_depth, ply + 1):
                if not b:
                    longest = max(longest, length)  # the attacker's reply wins: one more line of a loss
                    continue
            elif b:
                success, best, longest = True, code, length
                break
            else:
                best = code  # the defender found a move that is not a loss
                break
        else:
            success = not b  # every move failed the side to move
        path.discard(key)
        stored_best = swapped[best] if flipped and best > 0 else best
        if success:
            length = longest + cost
            if b:
                if not (lower == 1 and lower_depth <= length):
                    table[table_key] = (1, length, None, upper, upper_depth, upper_taint, stored_best)
                    if code:
                        killers[ply] = code
            else:
                table[table_key] = (lower, lower_depth, lower_taint, -1, length, None, stored_best)
            hit, taint = hit_above, taint_above
            return bool(b)
        if taint is not None:
            taint.discard(key)
            if not taint:
                taint = _NO_TAINT
        held = SOLVED if not hit else depth
        frozen: frozenset[int] | None = (
            None if taint is None else frozenset((*taint, _FLIPPED) if flipped else taint)
        )
        if b:
            table[table_key] = (lower, lower_depth, lower_taint, 0, held, frozen, stored_best)
        else:
            table[table_key] = (0, held, frozen, upper, upper_depth, upper_taint, stored_best)
            if code:
                killers[ply] = code
        hit = hit or hit_above
        if taint_above is not None:
            taint = taint_above if taint is None else taint_above | taint
        return not b

    root = proof_key(position)
    me, opp, pile, turn = _unpack(root)
    value: int | None = None
    move = -1
    proof_length = 0
    # The two questions deepen each on its own, the one whose next iteration looks cheaper first:
    # one is often far dearer than the other (a side with thirty cards trying in vain to win
    # against three), and the cheap one alone may settle the value.
    depths = {WIN: 1, DRAW: 1}  # the next depth of each question: a win? not a loss (at least a draw)?
    expected = {WIN: 0, DRAW: 0}  # the nodes its next iteration is expected to take
    took = {WIN: 0, DRAW: 0}  # the nodes its last iteration took
    solved: set[int] = set()  # the questions answered "no" with no horizon met
    keeper = -1  # a move that is proven not to lose
    losing: set[int] = set()
    path.discard(root)  # the root itself is searched (a line coming back to it repeats it)
    try:
        while open_questions := [q for q in (WIN, DRAW) if q not in solved and depths[q] <= MAX_DEPTH]:
            b = min(open_questions, key=lambda q: (expected[q], -q))
            hit, taint = False, _NO_TAINT
            before = count
            answer = at_least(me, opp, pile, swap.pile(pile), turn, b, depths[b], 0)
            # An iteration costs about as many times the one before as that one did its own
            # (bounded, so that one cheap start does not make the next look dear for ever).
            last, took[b] = took[b], count - before
            expected[b] = took[b] * min(16, max(2, took[b] // max(1, last)))
            if b and answer:
                value, move, proof_length = WIN, _stored_move(table, root, swap), length
                break
            if not b and not answer:
                value, proof_length = LOSS, length
                break
            if not hit:
                solved.add(b)
            if not b:
                keeper = _stored_move(table, root, swap)
            depths[b] += 1
        else:
            if len(solved) == 2:
                value, move = DRAW, keeper
    except _Aborted:
        pass
    unsettled = [depths[q] - 1 for q in (WIN, DRAW) if q not in solved]
    completed = min(unsettled) if unsettled else max(depths.values()) - 1
    if value is None or value == LOSS:
        losing = _losing_moves(position, table, swap)
    return Proof(value, move, proof_length, completed, count, frozenset(losing))


def safe_lead(hand: int, their_trump: int) -> int:
    """The move code of the lead that keeps a lock (the other beats none of ``hand``): the lowest card
    not of their trump suit, else the lowest.

    Led cards go to the other hand one by one; led in this order none of them beats a later one.
    """
    rest = hand & ~SUIT_MASKS[their_trump] or hand
    return (rest & -rest).bit_length()


def proof_key(position: Position) -> int:
    """The proof table's key of a position: pile, turn, the other hand and the mover's hand in one int."""
    turn = position.turn
    hands = position.hand_sets
    return pile_code(position.pile) << 73 | turn << 72 | hands[1 - turn] << 36 | hands[turn]


def _unpack(key: int) -> tuple[int, int, int, int]:
    mask = (1 << 36) - 1
    return key & mask, key >> 36 & mask, key >> 73, key >> 72 & 1


def _stored_move(table: dict[int, Entry], key: int, swap: SuitSwap) -> int:
    """The move the table keeps for the position ``key``, in that position's own frame (or -1)."""
    stored, flipped = swap.table_key(key)
    best = table.get(stored, _UNKNOWN)[6]
    return swap.codes[best] if flipped and best > 0 else best


def _losing_moves(position: Position, table: dict[int, Entry], swap: SuitSwap) -> set[int]:
    """The root's move codes whose position the table holds as a win for the opponent."""
    me, opp, pile, turn = _unpack(proof_key(position))
    found = set()
    for code in root_codes(position):
        me2, pile2 = child(me, pile, code, position.trumps[turn])
        key = pile2 << 73 | (1 - turn) << 72 | me2 << 36 | opp
        if me2 and table.get(swap.table_key(key)[0], _UNKNOWN)[0] == 1:
            found.add(code)
    return found
