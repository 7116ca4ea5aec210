"""Game-tree search: first the exact proof (engine/ai/proof.py) with part of the
budget, then negamax alpha-beta (PVS) with iterative deepening, a
transposition table, move ordering, repetition draws and exact solving.

Scores are from the side to move's point of view: a win ``MATE - plies``, a loss
``-(MATE - plies)``, a draw ``0``, and in between the static evaluation. Forced
pick-ups cost no depth (there is nothing to choose), so the horizon never falls
in the middle of one.

Exactness. A line that comes back to a position already on the search path, or
to one the game has already seen twice (a third occurrence), scores a draw, so
every search tree is finite and its value is the game value with endless play
counted as a draw. Two counters make
the table safe to share between lines: results that met the horizon are stored
with their depth, results that met none are stored as *solved* (good at any
depth), and results with a repetition that went back above their own node keep
only their move, because their value depends on the path that led to them. When
an iteration meets no horizon the root is solved and its move keeps the exact
game value; a proven win is played by the fastest win found, so the winner never
repeats a position.

>>> from engine import Position
>>> result = search(Position.from_notation("9HJHQHKD/TC/8H SH 0"), nodes=20_000)
>>> str(result.move) in ("9H,JH", "9H,KD", "JH,9H", "JH,KD"), result.proven, result.score > MATE_BOUND
(True, True, True)
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

from engine.ai.board import (
    EQUIVALENTS,
    child,
    move_of,
    ordered_moves,
    position_key,
    root_codes,
    shared_key,
    suit_swap,
)
from engine.ai.evaluation import DEFAULT_WEIGHTS, Weights, evaluator
from engine.ai.greedy import COSTS
from engine.ai.proof import DRAW, LOSS, WIN, ProofCache, proof_key, prove
from engine.cards import BEATERS
from engine.errors import IllegalMoveError
from engine.moves import Move
from engine.position import Position

MATE = 100_000
MATE_BOUND = MATE - 10_000
"""Scores beyond ``±MATE_BOUND`` are proven wins and losses."""
MAX_DEPTH = 200
MAX_PLY = 400
_SOLVED = 1 << 20  # table depth of a result with no horizon under it: good at any depth
_EXACT, _LOWER, _UPPER = 0, 1, 2
_CHECK_EVERY = 256  # nodes between looks at the clock
_ACE = 8
_NO_REPEAT = 1 << 30
_LATE = 4  # moves tried at a node before the rest are first searched one ply shallower


class _Aborted(Exception):
    """The budget ran out in the middle of an iteration."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found: the move, its score, and how far it looked."""

    move: Move
    score: int
    """From the mover's point of view; beyond ``±MATE_BOUND`` a proven win or loss."""
    depth: int
    """The deepest iteration completed (0: none, the move is the first ordered one)."""
    nodes: int
    proven: bool
    """Whether ``score`` is the exact game value (a win, a draw or a loss)."""

    def __reduce__(self) -> tuple[type[SearchResult], tuple[Move, int, int, int, bool]]:
        # Pickled by its fields (the analysis's workers send results back): compiled by mypyc
        # (hatch_build.py), a frozen class refuses the attribute setting of pickle's default.
        return SearchResult, (self.move, self.score, self.depth, self.nodes, self.proven)


PROOF_SHARE = 0.5
"""The part of the budget :func:`search` gives the exact proof (engine/ai/proof.py) before it searches."""


def search(
    position: Position,
    history: Sequence[Position] = (),
    seconds: float | None = None,
    nodes: int | None = None,
    max_depth: int = MAX_DEPTH,
    weights: Weights = DEFAULT_WEIGHTS,
    cache: ProofCache | None = None,
    proof_share: float = PROOF_SHARE,
) -> SearchResult:
    """Search ``position`` within ``seconds`` and/or ``nodes``; iterate to ``max_depth``.

    First ``proof_share`` of the budget goes to proving the exact value (a win,
    a draw or a loss: :func:`engine.ai.proof.prove`, with ``cache`` if given);
    unless that settles it, the rest goes to the alpha-beta search, which then
    leaves out the moves the proof found to lose.

    ``history`` holds the game's earlier positions: coming back to one seen twice
    there is a draw (its third occurrence); one seen once draws when the line comes
    back to it again. With only ``nodes`` (and the same ``cache`` state) the
    result is deterministic.
    """
    if position.is_over:
        raise IllegalMoveError(f"no move to search in {position.notation()}: the game is over")
    started = time.perf_counter()
    deadline = None if seconds is None else started + seconds
    losing: frozenset[int] = frozenset()
    proof_nodes = 0
    if proof_share > 0:
        proof = prove(
            position,
            history,
            nodes=None if nodes is None else max(1, int(nodes * proof_share)),
            cache=cache,
            deadline=None if seconds is None else started + seconds * proof_share,
        )
        proof_nodes = proof.nodes
        if (proof.value == WIN or proof.value == DRAW) and proof.move >= 0:
            score = MATE - proof.length if proof.value == WIN else 0
            return SearchResult(move_of(proof.move), score, proof.depth, proof.nodes, True)
        losing = proof.losing
        if proof.value == LOSS:
            # Lost against perfect play: the evaluation picks the move that makes it hardest.
            found = _evaluated_search(
                position,
                history,
                deadline,
                None if nodes is None else nodes - proof_nodes,
                max_depth,
                weights,
                frozenset(),
            )
            return SearchResult(
                found.move, -(MATE - proof.length), found.depth, found.nodes + proof_nodes, True
            )
    found = _evaluated_search(
        position,
        history,
        deadline,
        None if nodes is None else max(1, nodes - proof_nodes),
        max_depth,
        weights,
        losing,
    )
    return SearchResult(found.move, found.score, found.depth, found.nodes + proof_nodes, found.proven)


def _evaluated_search(
    position: Position,
    history: Sequence[Position],
    deadline: float | None,
    nodes: int | None,
    max_depth: int,
    weights: Weights,
    losing: frozenset[int],
) -> SearchResult:
    """The alpha-beta search with the evaluation at its horizon, leaving out the ``losing`` moves."""
    node_limit = nodes
    trumps = position.trumps
    beaters = (BEATERS[trumps[0]], BEATERS[trumps[1]])
    voluntary = position.rules.voluntary
    evaluate = evaluator(trumps, weights)
    costs = (COSTS[trumps[0]], COSTS[trumps[1]])
    # Each position on the search path, with its ply. A position the game has seen twice already
    # sits above the root (coming back to it is the third time: a draw). One seen once is searched
    # like any other: reaching it again is only its second time, and only a return on the path draws.
    # Keys are single ints (proof_key), which the garbage collector need not track.
    seen = Counter(map(proof_key, history))
    path: dict[int, int] = {key: -1 for key, times in seen.items() if times >= 2}
    cap = position.rules.max_moves - len(history)  # plies left before the move cap draws
    stop_ply = min(cap, MAX_PLY)
    table: dict[int, tuple[int, int, int, int]] = {}
    # A position and its twin under the swap of the free suits share one entry (SuitSwap.table_key),
    # its move in the frame of the key: a "flipped" node, the key's twin, swaps it.
    swap = suit_swap(trumps)
    low, shift, keep, swapped = swap
    aces = (9 * trumps[0] + _ACE, 9 * trumps[1] + _ACE)
    killers = [-1] * (MAX_PLY + 1)  # a move that last cut off at each ply, tried early at its siblings

    count = 0
    next_check = _CHECK_EVERY if node_limit is None else min(_CHECK_EVERY, node_limit)
    horizon = 0  # leaves judged by the evaluation (or by a table entry that was)
    repeated = _NO_REPEAT  # the lowest ply a repetition in the current subtree went back to

    def check() -> None:
        nonlocal next_check
        next_check = count + _CHECK_EVERY
        if node_limit is not None:
            if count >= node_limit:
                raise _Aborted
            next_check = min(next_check, node_limit)
        if deadline is not None and time.perf_counter() >= deadline:
            raise _Aborted

    def negamax(
        me: int, opp: int, pile: int, twin_pile: int, turn: int, depth: int, alpha: int, beta: int, ply: int
    ) -> int:
        nonlocal count, horizon, repeated
        count += 1
        if count >= next_check:
            check()
        key = pile << 73 | turn << 72 | opp << 36 | me
        if key in path:
            repeated = min(repeated, path[key])
            return 0
        if ply >= stop_ply:
            if ply >= cap:
                repeated = -1
                return 0
            horizon += 1  # so deep a line is judged, not searched: Python's stack is finite
            return evaluate(me, opp, pile, turn)
        table_key = shared_key(key, me, opp, pile, twin_pile, turn, low, shift, keep)
        flipped = table_key != key
        entry = table.get(table_key)
        best_code = -1
        if entry is not None:
            e_depth, e_flag, e_value, best_code = entry
            if flipped and best_code > 0:
                best_code = swapped[best_code]
            if e_depth >= depth:
                if e_value > MATE_BOUND:
                    e_value -= ply
                elif e_value < -MATE_BOUND:
                    e_value += ply
                if (
                    e_flag == _EXACT
                    or (e_flag == _LOWER and e_value >= beta)
                    or (e_flag == _UPPER and e_value <= alpha)
                ):
                    if e_depth < _SOLVED:
                        horizon += 1
                    return e_value
        mine = beaters[turn]
        theirs = beaters[1 - turn]
        if pile:
            top = (pile & 63) - 1
            beat_set = me & mine[top]
            if beat_set:
                if depth <= 0:
                    horizon += 1
                    return evaluate(me, opp, pile, turn)
                child_depth = depth - 1
            else:
                child_depth = depth  # a forced pick-up costs no depth
                best_code = 0
                codes: Iterable[int] = (0,)
        else:
            if depth <= 0:
                horizon += 1
                return evaluate(me, opp, pile, turn)
            beat_set = 0
            child_depth = depth - 1
        if beat_set or not pile:
            killer = killers[ply]
            if killer == best_code or not (
                (beat_set >> ((killer >> 6) - 1) & 1 and me >> ((killer & 63) - 1) & 1)
                if killer >= 64
                else not pile and killer > 0 and me >> (killer - 1) & 1
            ):
                killer = -1
            first = tuple(c for c in (best_code, killer) if c >= 0)
            rest = ordered_moves(me, opp, beat_set, theirs, costs[turn], voluntary, best_code, killer, aces[1 - turn])
            codes = chain(first, rest) if first else rest
        horizon_before = horizon
        repeated_above = repeated
        repeated = _NO_REPEAT
        alpha_before = alpha
        best = -MATE
        best_code = -1
        path[key] = ply
        tried = -1
        for code in codes:
            if code == EQUIVALENTS:
                # The moves left are each like one tried (engine.ai.board.card_classes), which is a
                # guess, not a proof: they are left out, and the result counts as met a horizon,
                # unless every move tried loses (then one of them may not, and a loss must be sure).
                if best < -MATE_BOUND:
                    continue
                horizon += 1
                break
            tried += 1
            # child() inlined: this loop is where the search spends its time.
            if code == 0:
                top = (pile & 63) - 1
                if top // 9 != trumps[turn]:
                    taking = 3
                elif top % 9 == _ACE:
                    taking = 36
                else:
                    taking = 5
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
                value = _out_value(opp, pile2, theirs, ply + 1)
            elif not tried:
                value = -negamax(opp, me2, pile2, twin_pile2, 1 - turn, child_depth, -beta, -alpha, ply + 1)
            else:
                if tried >= _LATE and child_depth >= 2:
                    # A late move in the ordering: first a shallower look, in full only if it surprises.
                    value = -negamax(opp, me2, pile2, twin_pile2, 1 - turn, child_depth - 1, -alpha - 1, -alpha, ply + 1)
                else:
                    value = alpha + 1
                if value > alpha:
                    value = -negamax(opp, me2, pile2, twin_pile2, 1 - turn, child_depth, -alpha - 1, -alpha, ply + 1)
                    if alpha < value < beta:
                        value = -negamax(opp, me2, pile2, twin_pile2, 1 - turn, child_depth, -beta, -alpha, ply + 1)
            if value > best:
                best = value
                best_code = code
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        if code:
                            killers[ply] = code
                        break
        del path[key]
        # A repetition back to this node or below it is part of its own value; one
        # further up makes the value depend on the path, so the table keeps only the move.
        if flipped and best_code > 0:
            best_code = swapped[best_code]
        if repeated >= ply:
            stored = best + ply if best > MATE_BOUND else best - ply if best < -MATE_BOUND else best
            flag = _UPPER if best <= alpha_before else _LOWER if best >= beta else _EXACT
            table[table_key] = (_SOLVED if horizon == horizon_before else depth, flag, stored, best_code)
        elif entry is None:
            table[table_key] = (-1, _EXACT, 0, best_code)
        repeated = min(repeated, repeated_above)
        return best

    root_key = proof_key(position)
    root_in_history = root_key in path
    me, opp, pile, turn = position_key(position)
    ordered = [code for code in root_codes(position) if code not in losing] or list(root_codes(position))
    best_code = ordered[0]
    best_score = 0
    completed = 0
    proven = False
    for depth in range(1, max_depth + 1):
        iteration_best = -MATE - 1
        iteration_code = best_code
        horizon_before = horizon
        path.setdefault(root_key, 0)
        try:
            alpha = -MATE - 1
            for code in ordered:
                me2, pile2 = child(me, pile, code, trumps[turn])
                twin_pile2 = swap.pile(pile2)
                if not me2:
                    value = _out_value(opp, pile2, beaters[1 - turn], 1)
                elif code == ordered[0]:
                    value = -negamax(opp, me2, pile2, twin_pile2, 1 - turn, depth - 1, -MATE - 1, MATE + 1, 1)
                else:
                    value = -negamax(opp, me2, pile2, twin_pile2, 1 - turn, depth - 1, -alpha - 1, -alpha, 1)
                    if value > alpha:
                        value = -negamax(opp, me2, pile2, twin_pile2, 1 - turn, depth - 1, -MATE - 1, -alpha, 1)
                if value > iteration_best:
                    iteration_best = value
                    iteration_code = code
                    alpha = max(alpha, value)
        except _Aborted:
            if iteration_best < -MATE_BOUND:
                # Every move searched so far is proven lost: the one cut short may not be, so it is
                # played (with the last whole iteration's estimate), not one known to lose.
                if iteration_best > -MATE - 1:
                    best_code = code
            else:
                best_code, best_score = iteration_code, iteration_best
                # A win for one root move is a win whatever the moves not searched yet: its subtree
                # was searched to the end, and a mate score there is exact (a loss needs them all).
                proven = best_score > MATE_BOUND
            break  # (the path is left as it is: the search ends)
        if not root_in_history:
            del path[root_key]
        best_code, best_score = iteration_code, iteration_best
        completed = depth
        ordered.remove(best_code)
        ordered.insert(0, best_code)
        if horizon == horizon_before or abs(best_score) > MATE_BOUND:
            proven = True
            break
    return SearchResult(move_of(best_code), best_score, completed, count, proven)


def _out_value(opp: int, pile: int, theirs: tuple[int, ...], ply: int) -> int:
    """The score of going out at ``ply``: a win, unless the other's one card beats the top."""
    if opp & (opp - 1) == 0 and opp & theirs[(pile & 63) - 1]:
        return 0
    return MATE - ply
