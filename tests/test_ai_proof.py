"""The exact proofs (engine/ai/proof.py) against the exhaustive solver, in a cache kept across a game,
and on positions from real games; a proven win is never let slip."""

from __future__ import annotations

import random

import pytest

from engine import Card, Game, Position, Rules
from engine.ai import ProofCache, choose
from engine.ai.board import move_of, suit_swap
from engine.ai.proof import DRAW, LOSS, WIN, proof_key, prove, safe_lead
from engine.ai.search import MATE, MATE_BOUND, search
from tests.test_ai_exact import endgames, exact_values, random_endgame, solve_all


def _check(position: Position, values: dict[Position, int], cache: ProofCache | None = None) -> int:
    """Prove ``position`` and check the value, the move and the losing moves against ``values``."""
    proof = prove(position, nodes=200_000, cache=cache)
    assert proof.value == values[position], (position, proof)
    if proof.value != LOSS:
        after = position.play(move_of(proof.move))
        outcome = after.outcome()
        if outcome is None:
            assert -values[after] == proof.value, (position, proof)
        else:
            won = WIN if outcome.winner == position.turn else DRAW
            assert won == proof.value, (position, proof)
    for code in proof.losing:
        assert values[position.play(move_of(code))] == WIN, (position, move_of(code))
    return proof.value


@pytest.mark.parametrize("seed", range(2))
def test_every_proof_agrees_with_the_exhaustive_solver(seed: int) -> None:
    found = [_check(position, exact_values(position)) for position in endgames()[80 + 30 * seed : 110 + 30 * seed]]
    assert {WIN, LOSS} <= set(found)
    assert found.count(DRAW) >= 1  # draws are proven too (the old search proved none)


@pytest.mark.parametrize("seed", range(2))
def test_a_cache_kept_across_a_game_stays_exact(seed: int) -> None:
    # One cache through the positions of random games, the way a player keeps it across its moves.
    rng = random.Random(f"cache {seed}")
    for _ in range(6):
        game = Game(random_endgame(rng, 9))
        values = solve_all(game.position)
        cache = ProofCache()
        while game.result is None and len(game.moves) < 30:
            position = game.position
            if len(position.legal_moves()) > 1 and position not in game.positions[:-1]:
                _check(position, values, cache)
            game.play(rng.choice(position.legal_moves()))


def test_a_lock_is_proven_at_once_and_played_out() -> None:
    # Player 0 holds only cards player 1 (trumps clubs, none in hand) cannot beat: a win, 7 cards to go.
    position = Position.from_notation("ASKSQSADKDAHKH/6S7S8S6D7D8D9H/- HC 0")
    proof = prove(position, nodes=1_000)
    assert proof.value == WIN and proof.nodes == 1
    assert proof.move == safe_lead(position.hand_sets[0], position.trumps[1])
    game = Game(position)
    while game.result is None:
        game.play(choose(game.position, "hard", nodes=1_000, history=game.positions))
    assert game.result.winner == 0


# Positions from self-play games (benchmarks/ai.py horizon, series 7) with 12-20 cards in both hands
# and a pile of 16-24, with the value a long run proves and the plies within which the winner forces
# it. The exhaustive solver does not finish on these (over 300,000 positions each, the pile coming
# back through pick-ups), so forces_win checks the wins independently, through the public API.
REAL = [
    ("7D9DQD6C7CJCQCKC/6S7SQSAH/QH8CKSTDKH9CASJD8STCKDAD9SAC6D8D8HTH7H9H6HJHTSJS CD 0", WIN, 7),
    ("KS8HAHKDAD9CQCKC/6H7H9HJH/AS6DJCAC7DTD8CTC8DJDQS6C9DQDKH7C8S9S7SJS6STSTHQH DC 0", WIN, 7),
    ("6H7H8H9HJH7DTD6C/KSASTHKD8C9C/8S7CQH8D9STCKH9DTSJCAHJDJSQC6DQDQSKCACAD6S7S CD 1", WIN, 5),
    ("6S7S8SAD6C7CTCQC/QS7H8HKHJCAC/QHAHKS6DKC6HAS7D9S9HQDKDTSTHTDJDJSJH8D9D8C9C HD 1", WIN, 5),
    ("8STSKSAS9CQCKCAC/6S6H7H8H9HTH/TCJCJD7S7C8CQD9S8DKDKHJS9DADAHQS6D7DJHQHTD6C CS 0", WIN, 7),
    ("9STSJSKSAS9HQHKHAH/7DTDKDADTCJCKC/AC6H7SQSTHJHQC6S8SJDQD8C7H7C9C6C8H8D9D6D HS 0", WIN, 9),
    ("7STSKS6DKDADKCAC/6S7H8HJHKHAH7C9C/JDQDQSAS9DTD9SJS7D8DTC8S8CJC6H9HTHQH6CQC DS 0", WIN, 7),
    ("9STSJSKSAS9HQHKHAH/6D7D9DTDKDADTCJCKC/AC6H7SQSTHJHQC6S8SJDQD8C7H7C9C6C8H8D HS 1", LOSS, 10),
    ("6S7STCJCQCKCAC/8HTHJHQHKH6D7D9DTDJDQD/AH7C7H8S6C8C9C8D9STSQS9HJSKSASKDAD6H CS 0", WIN, 7),
    ("9STS9DTDJDQDKDAD8CTCJCQC/JSQSKSAS6H7HQHKH/6S7S9HAHKCAC9C8HTHJH6C7C7D8S6D8D HS 1", WIN, 7),
]


def forces_win(position: Position, winner: int, plies: int, memo: dict[tuple[Position, int], bool]) -> bool:
    """Whether ``winner`` forces a win within ``plies`` moves: plain minimax on the public API."""
    outcome = position.outcome()
    if outcome is not None:
        return outcome.winner == winner
    if plies == 0:
        return False
    key = (position, plies)
    if key not in memo:
        results = (forces_win(position.play(m), winner, plies - 1, memo) for m in position.legal_moves())
        memo[key] = any(results) if position.turn == winner else all(results)
    return memo[key]


@pytest.mark.parametrize(("notation", "value", "plies"), REAL, ids=[n.split("/")[0] for n, _, _ in REAL])
def test_positions_from_real_games_get_their_exact_value(notation: str, value: int, plies: int) -> None:
    position = Position.from_notation(notation)
    result = search(position, nodes=100_000)
    assert result.proven
    proven = WIN if result.score > MATE_BOUND else LOSS if result.score < -MATE_BOUND else DRAW
    assert proven == value
    winner = position.turn if value == WIN else 1 - position.turn
    assert forces_win(position, winner, plies, {})
    assert not forces_win(position, winner, plies - 1, {})  # so the ply count is no loose bound


def test_the_question_that_looks_cheaper_is_asked_first() -> None:
    # Four moves from the end of a real game: 28 cards against 3, the side with 28 to move and lost
    # in four choices. Its 351 moves make every try to win dear and vain; asking the two questions
    # in turn at each depth, the proof spent 4 million nodes on that and never reached the loss.
    position = Position.from_notation(
        "QHAH6C/7S8S9STSJSQSKSAS6H7H8H9HJHKH6D7D8D9DTDJDQDKDAD7CJCQCKCAC/8CTC6STH9C HD 1"
    )
    proof = prove(position, nodes=300_000)
    assert (proof.value, proof.length) == (LOSS, 4)
    assert search(position, nodes=400_000, proof_share=0).score == -(MATE - 4)  # found independently


@pytest.mark.parametrize("pickup", ["forced", "voluntary"])
def test_a_proven_win_is_never_let_slip(pickup: str) -> None:
    # Whoever is proven to win does win, with a fresh search each move or with a cache,
    # against any defence (here random moves).
    rng = random.Random(pickup)
    games = 0
    while games < 8:
        start = random_endgame(rng, 10)
        start = Position(start.hand_sets, start.pile, start.trumps, start.turn, Rules(pickup=pickup))
        proof = prove(start, nodes=100_000)
        if proof.value != WIN:
            continue
        games += 1
        winner = start.turn
        cache = ProofCache() if games % 2 else None
        game = Game(start)
        while game.result is None:
            position = game.position
            if position.turn == winner:
                move = choose(position, "hard", nodes=100_000, history=game.positions, cache=cache)
            else:
                move = rng.choice(position.legal_moves())
            game.play(move)
        assert game.result.winner == winner, (start, game.moves)


def test_the_same_cache_state_gives_the_same_moves() -> None:
    game = Game(Position.from_notation("6SJSKS9HQHAH8D/7S8S9STSQS6H7H/KDTC SH 1"))
    first, second = ProofCache(), ProofCache()
    while game.result is None and len(game.moves) < 20:
        position = game.position
        move = choose(position, "hard", nodes=3_000, history=game.positions, cache=first)
        assert move is choose(position, "hard", nodes=3_000, history=game.positions, cache=second)
        game.play(move)


def twin_of(position: Position) -> Position:
    """``position`` with the two suits that are nobody's trump swapped, in both hands and the pile."""
    lower, higher = (s for s in range(4) if s not in position.trumps)

    def card(index: int) -> int:
        suit = index // 9
        return index + 9 * ((higher - lower) if suit == lower else (lower - higher) if suit == higher else 0)

    hands = tuple(sum(1 << card(c) for c in range(36) if hand >> c & 1) for hand in position.hand_sets)
    pile = tuple(Card(card(c)) for c in position.pile)
    return Position((hands[0], hands[1]), pile, position.trumps, position.turn, position.rules)


@pytest.mark.parametrize("seed", range(2))
def test_a_position_and_its_suit_swapped_twin_share_a_key_and_a_value(seed: int) -> None:
    # Swapping the two suits nobody trumps is a symmetry of the rules: the twin has the same value
    # (checked by the exhaustive solver), both get one table key, and a cache proves the twin at once.
    rng = random.Random(f"twin {seed}")
    found = set()
    for _ in range(25):
        position = random_endgame(rng, 8)
        twin = twin_of(position)
        assert twin_of(twin) == position
        swap = suit_swap(position.trumps)
        key, flipped = swap.table_key(proof_key(position))
        twin_key, twin_flipped = swap.table_key(proof_key(twin))
        assert key == twin_key
        assert flipped != twin_flipped or position == twin
        values = solve_all(position)
        twin_values = solve_all(twin)
        assert values[position] == twin_values[twin]
        cache = ProofCache()
        value = _check(position, values, cache)
        proof = prove(twin, nodes=200_000, cache=cache)
        assert proof.value == value and proof.nodes <= prove(twin, nodes=200_000).nodes
        _check(twin, twin_values, cache)
        fresh = search(twin, nodes=200_000, proof_share=0)
        assert fresh.proven and fresh.score == search(position, nodes=200_000, proof_share=0).score
        found.add(value)
    assert found == {WIN, DRAW, LOSS}
