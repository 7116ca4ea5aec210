"""The searching levels against an exhaustive solver on small endgames.

The reference is retrograde analysis over every position reachable from the
start, through the public engine API only: terminal positions are scored by
``Position.outcome``, wins and losses are propagated back to a fixed point, and
whatever is left undecided can be played for ever and counts as a draw.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from engine import Card, Game, Position, Rules
from engine.ai import choose
from engine.ai.search import MATE_BOUND, search

WIN, DRAW, LOSS = 1, 0, -1


def solve_all(root: Position) -> dict[Position, int]:
    """The exact value, for the side to move, of every position reachable from ``root``.

    Retrograde analysis: from the ends of the game, a position with a lost child is won, and one
    all of whose children are won is lost once the last of them is known; each move is looked at
    once each way, so the cost grows with the moves, not with their number times the passes.
    Positions are numbered as they are found and looked at in that order, so that each move costs
    one look-up by position; a value stays ``DRAW`` (0) until it is known to be a win or a loss.
    """
    number = {root: 0}
    positions = [root]
    parents: list[list[int]] = [[]]
    open_children: list[int] = []  # children not yet known won, by number
    values: list[int] = []
    known: list[int] = []
    for index, position in enumerate(positions):  # the list grows as positions are found
        moves = position.legal_moves()
        open_children.append(len(moves))
        if not moves:
            outcome = position.outcome()
            assert outcome is not None, position  # no legal move is the end of the game
            values.append(DRAW if outcome.winner is None else WIN if outcome.winner == position.turn else LOSS)
            known.append(index)
            continue
        values.append(DRAW)
        for move in moves:
            child = position.play(move)
            found = number.get(child)
            if found is None:
                found = number[child] = len(positions)
                positions.append(child)
                parents.append([])
            parents[found].append(index)
    while known:
        index = known.pop()
        value = values[index]
        if value == DRAW:
            continue  # a drawn end decides no parent
        for parent in parents[index]:
            if values[parent]:
                continue  # known already
            if value == LOSS:
                values[parent] = WIN
                known.append(parent)
            else:
                open_children[parent] -= 1
                if not open_children[parent]:
                    values[parent] = LOSS
                    known.append(parent)
    # Whatever is left undecided can be played for ever: a draw.
    return dict(zip(positions, values, strict=True))


def random_endgame(rng: random.Random, most: int) -> Position:
    """A position with at most ``most`` cards, from 2-4 suits so that cards meet often."""
    while True:
        suits = rng.sample(range(4), rng.randint(2, 4))
        cards = rng.sample([9 * s + r for s in suits for r in range(9)], rng.randint(3, most))
        first = rng.randint(1, len(cards) - 2)
        second = rng.randint(first + 1, len(cards))
        hands = (sum(1 << c for c in cards[:first]), sum(1 << c for c in cards[first:second]))
        rules = Rules(pickup=rng.choice(("forced", "voluntary")))
        trumps = rng.sample(range(4), 2)
        pile = tuple(Card(c) for c in cards[second:])
        position = Position(hands, pile, (trumps[0], trumps[1]), rng.randrange(2), rules)
        if len(position.legal_moves()) > 1:
            return position


@cache
def endgames() -> tuple[Position, ...]:
    """150 random endgames of at most 8 cards, 25 from each of the seeds 0-5: the ones the tests
    against the exhaustive solver share, so that each is solved once (:func:`exact_values`)."""
    return tuple(random_endgame(rng, 8) for rng in map(random.Random, range(6)) for _ in range(25))


@cache
def exact_values(position: Position) -> dict[Position, int]:
    """The exact values of ``position`` and of every position one move away, by :func:`solve_all`
    once a session (it is most of the time of the tests against it)."""
    values = solve_all(position)
    return {p: values[p] for p in (position, *map(position.play, position.legal_moves()))}


def test_the_reference_solver_knows_the_issue_example() -> None:
    position = Position.from_notation("9HJHQHKD/TC/8H SH 0")
    values = solve_all(position)
    after = {str(move): -values[position.play(move)] for move in position.legal_moves()}
    assert values[position] == WIN
    assert after["JH,KD"] == WIN
    assert after["QH,KD"] == LOSS


def test_adjacent_cards_are_not_equivalent() -> None:
    # JH and QH are neighbours in one hand, yet only the jack wins: played cards come back.
    position = Position.from_notation("9HJHQHKD/TC/8H SH 0")
    values = solve_all(position)
    for level in ("medium", "hard", "expert"):
        move = choose(position, level, nodes=20_000)
        assert -values[position.play(move)] == WIN, level


@pytest.mark.parametrize("seed", range(6))
def test_hard_keeps_the_exact_value_with_at_most_8_cards(seed: int) -> None:
    for position in endgames()[25 * seed : 25 * seed + 25]:
        values = exact_values(position)
        result = search(position, nodes=200_000)
        move = choose(position, "hard", nodes=200_000)
        assert move is result.move
        after = position.play(move)
        assert -values[after] == values[position], (position, move)
        assert result.proven, position
        proven = WIN if result.score > MATE_BOUND else LOSS if result.score < -MATE_BOUND else DRAW
        assert proven == values[position], (position, result)


class _OutOfBudget(Exception):
    """The game-rule solver gave up: too many positions."""


def game_value(game: Game, budget: list[int]) -> int:
    """The exact value for the side to move of ``game`` as it stands, by :class:`Game`'s own rules.

    A plain depth-first search through ``Game.play`` and ``Game.undo``, so the
    third occurrence of a position ends a line as a draw exactly as in a game.
    """
    budget[0] -= 1
    if budget[0] < 0:
        raise _OutOfBudget
    result = game.result
    if result is not None:
        return DRAW if result.winner is None else WIN if result.winner == game.position.turn else LOSS
    best = LOSS
    for move in game.position.legal_moves():
        game.play(move)
        try:
            best = max(best, -game_value(game, budget))
        finally:
            game.undo()
        if best == WIN:
            break
    return best


def test_a_third_occurrence_is_a_draw_and_a_second_is_not() -> None:
    position = Position.from_notation("9HJHQHKD/TC/8H SH 0")
    values = solve_all(position)
    winning = [position.play(m) for m in position.legal_moves() if values[position.play(m)] == LOSS]
    # Seen twice already: every win would be a third occurrence, so the best left is a draw.
    result = search(position, history=winning * 2, nodes=100_000)
    assert result.proven and result.score == 0
    assert position.play(result.move) in winning
    # Seen once: going there again is only the second time, and the win still stands.
    result = search(position, history=winning, nodes=100_000)
    assert result.proven and result.score > MATE_BOUND
    assert position.play(result.move) in winning


def test_a_position_seen_once_before_is_no_draw_yet() -> None:
    # The game is back at its start: a second occurrence, and still a loss (it was scored a draw).
    game = Game(Position.from_notation("TS6HAD/JS9D6C8C/- SC 0"))
    for move in ("TS", "JS,8C", "take", "9D", "JS,8C", "take"):
        game.play(move)
    assert game.position == game.start and game.result is None
    assert game_value(game, [100_000]) == LOSS
    result = search(game.position, history=game.positions[:-1], nodes=100_000)
    assert result.proven and result.score < -MATE_BOUND


@pytest.mark.parametrize("seed", range(2))
def test_the_search_applies_the_repetition_rule_to_the_history(seed: int) -> None:
    # Games of random moves that repeat positions, against the rules as Game applies them.
    rng = random.Random(seed)
    checked = 0
    while checked < 40:
        game = Game(random_endgame(rng, 7))
        for _ in range(rng.randint(2, 12)):
            if game.result is not None:
                break
            game.play(rng.choice(game.position.legal_moves()))
        if game.result is not None or len(set(game.positions)) == len(game.positions):
            continue
        moves = game.position.legal_moves()
        if len(moves) < 2:
            continue
        after = {}
        try:
            for move in moves:
                game.play(move)
                after[move] = -game_value(game, [20_000])
                game.undo()
        except _OutOfBudget:
            continue
        checked += 1
        value = max(after.values())
        result = search(game.position, history=game.positions[:-1], nodes=200_000)
        assert result.proven, game.positions
        proven = WIN if result.score > MATE_BOUND else LOSS if result.score < -MATE_BOUND else DRAW
        assert (proven, after[result.move]) == (value, value), game.positions


@pytest.mark.parametrize("seed", range(2))
def test_the_alpha_beta_search_alone_proves_only_exact_values(seed: int) -> None:
    # It leaves out moves like one it tried (a guess), yet a score it calls proven must be exact.
    proven = 0
    for position in endgames()[40 * seed : 40 * seed + 40]:
        result = search(position, nodes=3_000, proof_share=0)
        if result.proven:
            proven += 1
            values = exact_values(position)
            found = WIN if result.score > MATE_BOUND else LOSS if result.score < -MATE_BOUND else DRAW
            assert found == values[position], (position, result)
            if found != LOSS:
                assert -values[position.play(result.move)] == found, (position, result)
    assert proven >= 20


@pytest.mark.parametrize("seed", range(2))
def test_a_win_found_before_the_budget_ran_out_is_exact(seed: int) -> None:
    # A root move's mate in an iteration the budget cut short counts as a proven win.
    rng = random.Random(f"partial {seed}")
    cut_short = 0
    for _ in range(100):
        position = random_endgame(rng, 8)
        values: dict[Position, int] | None = None  # solved once, if a budget needs it
        for budget in (20, 40, 80, 160, 320):
            result = search(position, nodes=budget, proof_share=0)
            if result.proven and result.nodes >= budget:
                cut_short += 1
                if values is None:
                    values = solve_all(position)
                assert result.score > MATE_BOUND, (position, result)
                assert values[position] == WIN, (position, result)
                assert values[position.play(result.move)] == LOSS, (position, result)
    assert cut_short >= 10


def test_a_search_cut_short_plays_no_move_it_found_lost() -> None:
    # When every root move searched before the budget ran out loses, the one cut short is played.
    rng = random.Random("partial loss")
    cut_short = 0
    for _ in range(200):
        position = random_endgame(rng, 8)
        for budget in (20, 40, 80, 160, 320):
            result = search(position, nodes=budget, proof_share=0)
            if not result.proven:
                cut_short += 1
                assert abs(result.score) <= MATE_BOUND, (position, budget, result)
    assert cut_short >= 100
