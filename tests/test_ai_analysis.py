"""The coach's analysis (engine/ai/analysis.py) against the exhaustive solver."""

from __future__ import annotations

import random
from itertools import islice

from engine import Game, Move, Position, deal
from engine.ai import analysis, choose
from engine.ai.analysis import analyze
from engine.ai.proof import DRAW, LOSS, WIN
from tests.test_ai_exact import random_endgame, solve_all


def _random_game(rng: random.Random) -> Game:
    game = Game(random_endgame(rng, 8))
    while game.result is None and len(game.moves) < 40:
        game.play(rng.choice(game.position.legal_moves()))
    return game


def test_every_proven_verdict_agrees_with_the_exhaustive_solver() -> None:
    rng = random.Random("analysis")
    kinds = set()
    for _ in range(12):
        game = _random_game(rng)
        values = solve_all(game.start)
        for verdict in analyze(game, nodes=50_000):
            so_far = game.positions[: verdict.index + 2]
            if len(set(so_far)) != len(so_far):
                break  # the solver knows no history: only up to the first repetition
            kinds.add(verdict.kind)
            position = game.positions[verdict.index]
            assert position.turn == verdict.player and game.moves[verdict.index] is verdict.move
            if verdict.kind == analysis.FORCED:
                assert len(position.legal_moves()) == 1
                continue
            assert verdict.proven  # endgames this small are always proven
            assert verdict.before == values[position]
            after = game.positions[verdict.index + 1]
            outcome = after.outcome()
            if outcome is None:
                assert verdict.after == -values[after]
            else:
                won = DRAW if outcome.winner is None else WIN if outcome.winner == verdict.player else LOSS
                assert verdict.after == won
            assert verdict.mistake == (verdict.after < verdict.before)
            if verdict.mistake:
                assert verdict.better is not None
                better = position.play(verdict.better)
                kept = better.outcome()
                assert kept is not None or -values[better] == verdict.before
    assert {analysis.KEPT, analysis.FORCED} <= kinds and kinds & set(analysis.MISTAKES)


def test_the_analysis_comes_one_move_at_a_time_and_only_for_the_players_asked() -> None:
    game = Game(Position.from_notation("9HJHQHKD/TC/8H SH 0"))
    for move in ("QH,KD", "take", "9H", "QH,TC", "take", "KD", "take", "8H"):
        game.play(move)
    first = next(analyze(game, players=(1,), nodes=20_000))
    assert (first.index, first.player, first.kind) == (1, 1, analysis.FORCED)
    verdicts = list(analyze(game, players=(0,), nodes=20_000))
    assert [v.index for v in verdicts] == [0, 2, 4, 6]
    assert verdicts[0].kind == analysis.WIN_TO_LOSS and verdicts[1].before == LOSS


def test_moves_beyond_the_proofs_are_estimated_with_the_evaluation() -> None:
    game = Game(deal(bytes(32), 0, "SH"))
    for _ in range(6):
        game.play(choose(game.position, "medium", history=game.positions))
    verdicts = list(islice(analyze(game, nodes=3_000), 3))
    estimated = [v for v in verdicts if v.kind == analysis.ESTIMATED]
    assert estimated and all(v.best is not None and v.played is not None for v in estimated)
    assert not any(v.proven for v in estimated)
    assert verdicts == list(islice(analyze(game, nodes=3_000), 3))  # deterministic with a node budget


def _estimate(played: float, best: float, better: str | None = "7D") -> analysis.Verdict:
    move = Move.parse("6D")
    return analysis.Verdict(
        0, 0, move, analysis.ESTIMATED, None, None, None if better is None else Move.parse(better), played, best
    )


def test_an_estimate_is_graded_by_how_far_the_best_move_found_looks_better() -> None:
    doubtful, mistake = analysis.DOUBTFUL_DROP, analysis.MISTAKE_DROP
    assert 0 < doubtful < mistake
    assert _estimate(1.0, 1.0 + doubtful - 0.01).grade is None
    assert _estimate(1.0, 1.0 + doubtful).grade == analysis.DOUBTFUL
    assert _estimate(-2.0, -2.0 + mistake - 0.01).grade == analysis.DOUBTFUL
    assert _estimate(-2.0, -2.0 + mistake).grade == analysis.ESTIMATED_MISTAKE
    assert _estimate(-5.0, 5.0, better=None).grade is None  # the search's own move: only noise
    proven = analysis.Verdict(0, 0, Move.parse("6D"), analysis.WIN_TO_LOSS, WIN, LOSS, Move.parse("7D"), None, None)
    assert proven.grade is None and proven.mistake  # a proof is never graded as an estimate


def test_the_grades_follow_the_estimates_of_a_real_game_and_never_claim_a_proof() -> None:
    game = Game(deal(bytes([15]) * 32, 0, "SH"))  # a long game, with estimates graded
    while game.result is None:
        level = "easy" if game.position.turn == 0 else "medium"
        game.play(choose(game.position, level, history=game.positions))
    verdicts = list(analyze(game, nodes=3_000))
    graded = [v for v in verdicts if v.grade is not None]
    assert graded and verdicts == list(analyze(game, nodes=3_000))  # deterministic with a node budget
    for verdict in verdicts:
        assert verdict.kind != analysis.ESTIMATED or verdict.after != WIN  # a winning move proves the win
        if verdict.grade is None:
            continue
        assert verdict.kind == analysis.ESTIMATED and not verdict.proven and not verdict.mistake
        assert verdict.better is not None and verdict.better != verdict.move
        assert verdict.better in game.positions[verdict.index].legal_moves()
        assert verdict.best is not None and verdict.played is not None  # a grade needs both
        drop = verdict.best - verdict.played
        wanted = analysis.ESTIMATED_MISTAKE if drop >= analysis.MISTAKE_DROP else analysis.DOUBTFUL
        assert drop >= analysis.DOUBTFUL_DROP and verdict.grade == wanted
