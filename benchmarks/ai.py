"""Strength and speed of the AI: paired-deal matches, an Elo table, nodes/s, solving, tuning.

Every deal is played twice with the seats swapped, so luck of the deal cancels;
a win scores 1, a draw 1/2. Budgets are per move. Commands::

    python benchmarks/ai.py match hard greedy --deals 50 --seconds 0.3
    python benchmarks/ai.py table --agents greedy,easy,medium,hard:0.05s,expert:0.2s --deals 20
    python benchmarks/ai.py speed --seconds 0.3
    python benchmarks/ai.py solve --seconds 0.3 --small --cards 8,10,12,14,16
    python benchmarks/ai.py horizon --positions 8 --budgets 0.5,2
    python benchmarks/ai.py horizon --positions 12 --budgets 0.5,2 --before-end 4,10,20,40
    python benchmarks/ai.py horizon --cards 16,20 --proof-nodes 150000,600000,2400000,9600000
    python benchmarks/ai.py tune --deals 40 --nodes 1500 --rounds 2

The issue-23 goals, each from one command (docs/ai.md has the figures)::

    python benchmarks/ai.py horizon --before-end 4,10,20 --positions 24 --nodes 300000 --check 100000
    python benchmarks/ai.py horizon --before-end 4,10,20 --positions 48 --nodes 300000 --game-nodes 300000 --check 100000
    python benchmarks/ai.py horizon --before-end 4,10,20 --positions 48 --nodes 300000 --game-nodes 20000 --check 100000
    python benchmarks/ai.py convert --games 24 --before-end 6,10,20,40 --prove-nodes 600000 --jobs 2
    python benchmarks/ai.py match expert:80000n hard:20000n --deals 30 --jobs 2
    python benchmarks/ai.py analysis --nodes 100000 --runs 2 --check 100000

The games the horizon replays are recorded (``record``; 300,000 nodes a move take 36 minutes
on two cores)::

    python benchmarks/ai.py record --games 48 --game-nodes 300000 --jobs 2

Agents: ``random``, ``greedy`` (the one-ply baseline) and the levels of
:data:`engine.ai.LEVELS`. The machine is shared: keep runs bounded (``--jobs``
defaults to 1).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from itertools import combinations, count, islice
from pathlib import Path
from typing import TypeVar

# Run as a script, this folder heads sys.path and this file would shadow the engine package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from cli.options import ANALYSIS_NODES  # noqa: E402
from cli.search_pool import search_pool, usable_cores  # noqa: E402
from engine import Game, Move, Position, deal  # noqa: E402
from engine.ai import LEVELS, ProofCache, choose  # noqa: E402
from engine.ai.analysis import ESTIMATED, FORCED, Verdict, analyze  # noqa: E402
from engine.ai.evaluation import DEFAULT_WEIGHTS, Weights  # noqa: E402
from engine.ai.greedy import greedy_move  # noqa: E402
from engine.ai.proof import DRAW, WIN, prove  # noqa: E402
from engine.ai.search import MATE, MATE_BOUND, search  # noqa: E402

AGENTS = ("random", "greedy", *LEVELS)
Job = TypeVar("Job")
Done = TypeVar("Done")
TRUMP_PAIRS = [a + b for a in "SHDC" for b in "SHDC" if a != b]


@dataclass(frozen=True)
class Budget:
    """Thinking budget a move for the searching agents."""

    seconds: float | None = None
    nodes: int | None = None


Agent = Callable[[Position, Sequence[Position], random.Random], Move]


def make_agent(name: str, budget: Budget, weights: Weights | None = None) -> Agent:
    """An agent by name (``hard:0.05s``, ``hard:3000n`` give it its own budget);
    ``weights`` makes a hard-level search with those evaluation weights."""
    if weights is not None:

        def tuned(position: Position, history: Sequence[Position], rng: random.Random) -> Move:
            moves = position.legal_moves()
            if len(moves) == 1:
                return moves[0]
            return search(position, history[:-1], budget.seconds, budget.nodes, weights=weights).move

        return tuned
    name, _, own = name.partition(":")
    if own:
        budget = named_budget(own)  # this agent's own budget, so levels can differ in one table
    if name == "random":
        return lambda position, history, rng: rng.choice(position.legal_moves())
    if name == "greedy":
        return lambda position, history, rng: greedy_move(position, position.legal_moves())
    if name not in LEVELS:
        raise SystemExit(f"unknown agent {name!r}: choose from {', '.join(AGENTS)}")

    def level(position: Position, history: Sequence[Position], rng: random.Random) -> Move:
        return choose(position, name, budget.seconds, budget.nodes, history, rng)

    return level


def named_budget(own: str) -> Budget:
    """An agent's own budget, ``0.05s`` or ``3000n`` (as in ``hard:3000n``); empty: the level's."""
    if not own:
        return Budget()
    return Budget(float(own[:-1]), None) if own.endswith("s") else Budget(None, int(own[:-1]))


def deal_spec(base: int, index: int) -> tuple[bytes, str]:
    """The seed and trumps of deal ``index`` in the series ``base``."""
    seed = hashlib.sha256(f"ai-bench {base} {index}".encode()).digest()
    return seed, TRUMP_PAIRS[seed[0] % len(TRUMP_PAIRS)]


def play_game(agents: tuple[Agent, Agent], seed: bytes, trumps: str) -> tuple[float, int]:
    """Play one game, ``agents[i]`` as player ``i``: player 0's score and the moves played."""
    game = Game(deal(seed, 0, trumps))
    rng = random.Random(seed)
    while game.result is None:
        position = game.position
        game.play(agents[position.turn](position, game.positions, rng))
    winner = game.result.winner
    return (0.5 if winner is None else 1.0 - winner), len(game.moves)


@dataclass(frozen=True)
class PairJob:
    a: str
    b: str
    budget: Budget
    seed: bytes
    trumps: str
    weights_a: Weights | None = None
    weights_b: Weights | None = None


def play_pair(job: PairJob) -> tuple[float, int]:
    """One deal played twice, seats swapped: ``a``'s mean score and the moves played."""
    a = make_agent(job.a, job.budget, job.weights_a)
    b = make_agent(job.b, job.budget, job.weights_b)
    first, moves1 = play_game((a, b), job.seed, job.trumps)
    second, moves2 = play_game((b, a), job.seed, job.trumps)
    return (first + 1.0 - second) / 2, moves1 + moves2


def mapped(function: Callable[[Job], Done], jobs: Sequence[Job], workers: int) -> list[Done]:
    """``function`` of each of ``jobs``, in order, by ``workers`` processes (in this one if 1)."""
    if workers <= 1:
        return [function(job) for job in jobs]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(function, jobs))


def summary(scores: list[float]) -> tuple[float, float]:
    """Mean and 95% confidence half-width of per-deal scores."""
    n = len(scores)
    mean = sum(scores) / n
    if n < 2:
        return mean, float("nan")
    var = sum((s - mean) ** 2 for s in scores) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def elo(score: float) -> float:
    """The Elo difference that expects ``score`` (clamped away from 0 and 1)."""
    score = min(max(score, 0.005), 0.995)
    return 400 * math.log10(score / (1 - score))


def match(args: argparse.Namespace) -> None:
    budget = Budget(args.seconds, args.nodes)
    jobs = [PairJob(args.a, args.b, budget, *deal_spec(args.base, i)) for i in range(args.deals)]
    start = time.perf_counter()
    results = mapped(play_pair, jobs, args.jobs)
    elapsed = time.perf_counter() - start
    scores = [s for s, _ in results]
    mean, half = summary(scores)
    moves = sum(m for _, m in results)
    print(f"{args.a} vs {args.b}: {budget_text(budget, args.a, args.b)}, {args.deals} deals x 2 seats")
    print(f"  score {mean:.1%} ± {half:.1%} (95% CI), Elo {elo(mean):+.0f}")
    print(f"  {2 * args.deals} games, {moves / (2 * args.deals):.0f} moves a game, {elapsed:.0f} s")


def budget_list(seconds: str | None, nodes: str | None) -> list[Budget]:
    """The budgets of ``--budgets 0.5,2`` (seconds) or ``--nodes 300000,1200000`` (nodes), smallest first."""
    if nodes:
        return [Budget(None, n) for n in sorted(int(b) for b in nodes.split(","))]
    return [Budget(s, None) for s in sorted(float(b) for b in (seconds or "0.5,2").split(","))]


def budget_text(budget: Budget, *agents: str) -> str:
    """The budget in words (``agents``: their names, which may carry their own budgets)."""
    if any(":" in agent for agent in agents) and budget == Budget():
        return "the budgets in the agents' names"
    parts = []
    if budget.seconds is not None:
        parts.append(f"{budget.seconds:g} s/move")
    if budget.nodes is not None:
        parts.append(f"{budget.nodes} nodes/move")
    return ", ".join(parts) or "the levels' default budgets"


def ratings(names: list[str], results: dict[tuple[str, str], float], deals: int) -> dict[str, float]:
    """Bradley-Terry ratings (Elo scale, the first agent at 0) from round-robin scores."""
    strength = dict.fromkeys(names, 1.0)
    games = 2 * deals
    for _ in range(2000):
        updated = {}
        for name in names:
            wins = 0.0
            denominator = 0.0
            for (a, b), score in results.items():
                if name not in (a, b):
                    continue
                own = score if name == a else 1 - score
                other = b if name == a else a
                wins += own * games + 0.5  # a half-game prior keeps perfect scores finite
                denominator += (games + 1) / (strength[name] + strength[other])
            updated[name] = wins / denominator
        strength = updated
    anchor = strength[names[0]]
    return {n: 400 * math.log10(strength[n] / anchor) for n in names}


def table(args: argparse.Namespace) -> None:
    names = args.agents.split(",")
    budget = Budget(args.seconds, args.nodes)
    print(f"round robin of {', '.join(names)}: {budget_text(budget)}, {args.deals} deals x 2 seats a pairing")
    results: dict[tuple[str, str], float] = {}
    for a, b in combinations(names, 2):
        jobs = [PairJob(a, b, budget, *deal_spec(args.base, i)) for i in range(args.deals)]
        start = time.perf_counter()
        mean, half = summary([s for s, _ in mapped(play_pair, jobs, args.jobs)])
        results[a, b] = mean
        print(f"  {a:>12} vs {b:<12} {mean:6.1%} ± {half:.1%}   ({time.perf_counter() - start:.0f} s)")
    print("Elo-like ratings (Bradley-Terry, first agent = 0):")
    for name, rating in sorted(ratings(names, results, args.deals).items(), key=lambda item: -item[1]):
        print(f"  {name:>12} {rating:+6.0f}")


def hand_cards(position: Position) -> int:
    """Cards in both hands (a dealt game always holds all 36, the rest in the pile)."""
    return position.hand_sets[0].bit_count() + position.hand_sets[1].bit_count()


def sample_positions(count: int, cards: int | None, rng: random.Random) -> list[Position]:
    """Positions met when greedy plays itself, optionally only those with ``cards`` cards in hand."""
    found: list[Position] = []
    while len(found) < count:
        game = Game(deal(rng.randbytes(32), 0, rng.choice(TRUMP_PAIRS)))
        seen = []
        while game.result is None:
            position = game.position
            if len(position.legal_moves()) > 1 and (cards is None or hand_cards(position) == cards):
                seen.append((position, game.positions[:-1]))
            game.play(greedy_move(position, position.legal_moves()))
        if seen:
            found.append(rng.choice(seen)[0])
    return found


def engine_build() -> str:
    """Which build of the search this process runs: the wheel's compiled one, or the source."""
    compiled = not str(sys.modules[search.__module__].__file__).endswith(".py")
    return "compiled by mypyc (hatch_build.py)" if compiled else "pure Python"


def speed(args: argparse.Namespace) -> None:
    print(f"the search: {engine_build()}")
    rng = random.Random(args.base)
    positions = sample_positions(args.positions, None, rng)
    total_nodes = 0
    total_time = 0.0
    for position in positions:
        start = time.perf_counter()
        result = search(position, seconds=args.seconds)
        total_time += time.perf_counter() - start
        total_nodes += result.nodes
    print(
        f"search speed: {total_nodes / total_time:,.0f} nodes/s "
        f"({len(positions)} positions from greedy self-play, {args.seconds:g} s each)"
    )
    opening = [deal(rng.randbytes(32), 0, rng.choice(TRUMP_PAIRS)) for _ in range(args.positions // 4 or 1)]
    worst = 0.0
    depths = []
    for position in opening:
        start = time.perf_counter()
        result = search(position, seconds=args.seconds)
        worst = max(worst, time.perf_counter() - start - args.seconds)
        depths.append(result.depth)
    print(
        f"opening positions: depth {min(depths)}-{max(depths)} in {args.seconds:g} s, "
        f"worst overrun {worst * 1000:.1f} ms"
    )


def small_deals(count: int, cards: int, rng: random.Random) -> list[Position]:
    """Games dealt from ``cards`` cards of the pack instead of 36: half each, nothing on the pile."""
    found = []
    for _ in range(count):
        dealt = rng.sample(range(36), cards)
        trumps = rng.sample(range(4), 2)
        hands = (sum(1 << c for c in dealt[::2]), sum(1 << c for c in dealt[1::2]))
        found.append(Position(hands, (), (trumps[0], trumps[1]), 0))
    return found


def solve(args: argparse.Namespace) -> None:
    rng = random.Random(args.base)
    if args.small:
        print(f"games dealt from N cards (N/2 each, empty pile), solved exactly within {args.seconds:g} s:")
    else:
        print(
            f"positions from greedy self-play, by N cards in both hands, solved exactly within {args.seconds:g} s:"
        )
    for cards in map(int, args.cards.split(",")):
        if args.small:
            positions = small_deals(args.positions, cards, rng)
        else:
            positions = sample_positions(args.positions, cards, rng)
        proven = 0
        spent = 0.0
        for position in positions:
            start = time.perf_counter()
            proven += search(position, seconds=args.seconds).proven
            spent += time.perf_counter() - start
        print(
            f"  {cards:2} cards: {proven}/{len(positions)} solved ({proven / len(positions):.0%}), "
            f"mean {spent / len(positions):.3f} s"
        )


Sample = list[tuple[Position, tuple[Position, ...]]]
"""Positions from self-play games, each with the game's positions before it."""


def recorded_file(base: int, nodes: int) -> Path:
    """Where the self-play games of series ``base`` at ``nodes`` a move are recorded (``python
    benchmarks/ai.py record``), so that the positions the benchmarks take from them stay the same
    when the alpha-beta search changes: one game a line, its moves. Series 1 at 2,000 nodes a move
    is as the engine of commit 84c1666 played it, at 20,000 and 300,000 (``hard``'s budget) as that
    of bcb074f."""
    return _HERE / ("self_play.txt" if (base, nodes) == (1, 2000) else f"self_play_{base}_{nodes}.txt")


def self_play_game(base: int, index: int, nodes: int, moves: Sequence[str] = ()) -> Game:
    """Deal ``index`` of series ``base`` played to its end by the alpha-beta search alone at ``nodes``
    a move (deterministic, and the same game however the proofs change), after ``moves``."""
    seed, trumps = deal_spec(base, index)
    game = Game(deal(seed, 0, trumps))
    for move in moves:
        game.play(Move.parse(move))
    while game.result is None:
        position = game.position
        legal = position.legal_moves()
        game.play(legal[0] if len(legal) == 1 else search(position, game.positions[:-1], nodes=nodes, proof_share=0).move)
    return game


def self_play_games(base: int, nodes: int) -> Iterator[Game]:
    """The finished games of series ``base`` (:func:`self_play_game`), in order; those of its
    :func:`recorded_file` replayed from it, the same however the search changes."""
    path = recorded_file(base, nodes)
    recorded = path.read_text().splitlines() if path.exists() else []
    for index in count():
        yield self_play_game(base, index, nodes, recorded[index].split() if index < len(recorded) else ())


def record(args: argparse.Namespace) -> None:
    """Write the :func:`recorded_file` of series ``--base`` at ``--game-nodes`` afresh: its first
    ``--games`` self-play games as the search plays them now."""
    base, nodes = args.base, args.game_nodes
    games = mapped(partial(self_play_game, base, nodes=nodes), range(args.games), args.jobs)
    lines = [" ".join(map(str, game.moves)) for game in games]
    path = recorded_file(base, nodes)
    path.write_text("\n".join(lines) + "\n")
    print(f"{args.games} games written to {path}")


def with_a_choice(game: Game, index: int) -> int | None:
    """The last position at or before ``index`` in ``game`` where the mover has a choice of moves."""
    for earlier in range(index, -1, -1):
        if len(game.positions[earlier].legal_moves()) > 1:
            return earlier
    return None


def positions_by_cards(cards: Sequence[int], count: int, base: int, nodes: int) -> dict[int, Sample]:
    """For each N in ``cards``, the first position of a game with N cards in both hands (the other
    36 - N on the pile) and a choice, from the first ``count`` games that have one."""
    found: dict[int, Sample] = {n: [] for n in cards}
    games = self_play_games(base, nodes)
    for _ in range(20 * count):
        if all(len(found[n]) >= count for n in cards):
            break
        game = next(games)
        wanted = {n for n in cards if len(found[n]) < count}
        for index, position in enumerate(game.positions[:-1]):
            held = hand_cards(position)
            if held in wanted and len(position.legal_moves()) > 1:
                found[held].append((position, game.positions[:index]))
                wanted.discard(held)
    return found


def positions_before_the_end(moves: Sequence[int], count: int, base: int, nodes: int) -> dict[int, Sample]:
    """For each M in ``moves``, from each of ``count`` games, the position M moves before the game's
    end (or the last one before it with a choice), where the game is that long."""
    found: dict[int, Sample] = {m: [] for m in moves}
    for game in islice(self_play_games(base, nodes), count):
        last = len(game.positions) - 1  # the final position, where nobody moves
        for m in moves:
            index = with_a_choice(game, last - m) if last >= m else None
            if index is not None:
                found[m].append((game.positions[index], game.positions[:index]))
    return found


def own_turns(history: Sequence[Position], player: int) -> list[int]:
    """The indices of the positions in ``history`` where ``player`` had a choice of moves."""
    return [i for i, p in enumerate(history) if p.turn == player and len(p.legal_moves()) > 1]


def horizon(args: argparse.Namespace) -> None:
    """How often the search proves the value of positions from real games, by cards in hand or by
    moves before the end of the game; with ``--check``, each proof checked independently."""
    print(f"the search: {engine_build()}")
    budgets = budget_list(args.budgets, args.nodes)
    start = time.perf_counter()
    if args.before_end:
        rows = [int(m) for m in args.before_end.split(",")]
        found = positions_before_the_end(rows, args.positions, args.base, args.game_nodes)
        by, label = "by M moves before the end of the game", "M"
    else:
        rows = [int(n) for n in args.cards.split(",")]
        found = positions_by_cards(rows, args.positions, args.base, args.game_nodes)
        by, label = "by N cards in both hands", "N"
    warm = f", each after the player's {args.warm} turns before with one cache" if args.warm else ""
    print(
        f"positions from self-play ({args.game_nodes} nodes a move, series {args.base}), "
        f"{by}{'' if args.proof_nodes else warm}; generated in {time.perf_counter() - start:.0f} s"
    )
    if args.proof_nodes:
        proof_growth(found, rows, sorted(int(b) for b in args.proof_nodes.split(",")), label)
        print(f"total {time.perf_counter() - start:.0f} s")
        return
    names = [f"proven in {short_text(b)} (draws)" for b in budgets]
    checked = "  checked: agree/not found/open" if args.check else ""
    print(f"   {label}  {'  '.join(names)}  median time to proof  nodes/s{checked}")
    for n in rows:
        proofs: dict[Budget, list[tuple[float, int]]] = {b: [] for b in budgets}
        tally = Tally()
        nodes = 0
        spent = 0.0
        for position, history in found[n]:
            for budget in budgets:
                cache = ProofCache() if args.warm else None
                for earlier in own_turns(history, position.turn)[-args.warm :] if args.warm else ():
                    # The searches the player made at its own turns before, with one cache, as in a game.
                    search(history[earlier], history[:earlier], budget.seconds, budget.nodes, cache=cache)
                began = time.perf_counter()
                result = search(position, history, budget.seconds, budget.nodes, cache=cache)
                took = time.perf_counter() - began
                nodes += result.nodes
                spent += took
                if result.proven:
                    # A proof within this budget is one within every larger one: skip those runs.
                    for larger in budgets[budgets.index(budget) :]:
                        proofs[larger].append((took, result.score))
                    if args.check:
                        tally.add(check_value(position, result.score, args.check))
                    break
        total = len(found[n])
        cells = "  ".join(
            f"{len(proofs[b]):>3}/{total:<3} ({sum(s == 0 for _, s in proofs[b])})".ljust(len(name))
            for b, name in zip(budgets, names, strict=True)
        )
        times = sorted(t for t, _ in proofs[budgets[-1]])
        median = f"{times[len(times) // 2]:.3f} s" if times else "-"
        check_cell = f"  {tally}" if args.check else ""
        print(f"  {n:2}  {cells}  {median:>20}  {nodes / spent if spent else 0:>8,.0f}{check_cell}")
    print(f"total {time.perf_counter() - start:.0f} s")


def short_text(budget: Budget) -> str:
    """``0.5 s`` or ``300,000 nodes``."""
    return f"{budget.seconds:g} s" if budget.seconds is not None else f"{budget.nodes:,} nodes"


class GaveUp(Exception):
    """The independent check ran out of its budget of positions."""


def forces_win(position: Position, winner: int, choices: int, limit: int) -> bool:
    """Whether ``winner`` forces a win from ``position`` within ``choices`` (moves with an
    alternative, of either player): plain memoised minimax on the public API, independent of
    engine.ai; the repetition rule is left out (a forced win need never repeat). Raises
    :class:`GaveUp` past ``limit`` positions."""
    memo: dict[tuple[Position, int], bool] = {}

    def wins(at: Position, left: int) -> bool:
        outcome = at.outcome()
        if outcome is not None:
            return outcome.winner == winner
        moves = at.legal_moves()
        cost = 1 if len(moves) > 1 else 0
        if left < cost:
            return False
        key = (at, left)
        if key not in memo:
            if len(memo) >= limit:
                raise GaveUp
            results = (wins(at.play(move), left - cost) for move in moves)
            memo[key] = any(results) if at.turn == winner else all(results)
        return memo[key]

    return wins(position, choices)


def check_value(position: Position, score: int, limit: int) -> bool | None:
    """Whether a proven search score, a win or a loss within L choices (or plies), holds by
    :func:`forces_win`: ``True``, ``False`` (no forced win found within L plus the winner's cards),
    ``None`` (a draw, or the check gave up).

    The bound grows from L by two at a time: a proof counts a lock (the winner leads every card,
    each picked up in turn) as no choice, but each lead is one here."""
    if abs(score) <= MATE_BOUND:
        return None  # a draw: no bounded check proves endless play
    winner = position.turn if score > 0 else 1 - position.turn
    length = MATE - abs(score)
    try:
        for extra in range(0, position.hand_sets[winner].bit_count() + 2, 2):
            if forces_win(position, winner, length + extra, limit):
                return True
    except GaveUp:
        return None
    return False


@dataclass
class Tally:
    """Independent checks of proofs: agreed; not confirmed (no forced win found within the bound);
    left open (draws, or too big to check)."""

    agree: int = 0
    wrong: int = 0
    open: int = 0

    def add(self, checked: bool | None) -> None:
        if checked is None:
            self.open += 1
        elif checked:
            self.agree += 1
        else:
            self.wrong += 1

    def __str__(self) -> str:
        return f"{self.agree}/{self.wrong}/{self.open}"


def proof_growth(found: dict[int, Sample], rows: Sequence[int], budgets: Sequence[int], label: str) -> None:
    """How the share of positions the proof alone settles grows with its node budget.

    One run of :func:`prove` at the largest budget answers for every smaller one: with a node
    budget alone the proof is deterministic, and a run that stops earlier is a prefix of it.
    """
    header = "  ".join(f"{b:>11,} nodes" for b in budgets)
    print(f"   {label}  {header}  (draws)  nodes/s")
    for n in rows:
        needed: list[tuple[int, bool]] = []  # for each position proven: the nodes it took, a draw?
        nodes = 0
        spent = 0.0
        for position, history in found[n]:
            began = time.perf_counter()
            proof = prove(position, history, nodes=budgets[-1])
            spent += time.perf_counter() - began
            nodes += proof.nodes
            if proof.value is not None:
                needed.append((proof.nodes, proof.value == DRAW))
        total = len(found[n])
        cells = "  ".join(f"{sum(k <= b for k, _ in needed):>7}/{total:<9}" for b in budgets)
        draws = sum(d for _, d in needed)
        print(f"  {n:2}  {cells}  ({draws})    {nodes / spent if spent else 0:>8,.0f}")


@dataclass(frozen=True)
class ConvertJob:
    """A start from a real game (the deal and the moves up to it) and the two agents to play it out."""

    seed: bytes
    trumps: str
    moves: tuple[Move, ...]
    winner: str
    defender: str


def play_out(job: ConvertJob) -> tuple[bool, bool, int]:
    """Play a proven-won start out, the winner's agent against the defender's: whether the winner
    won, whether the winner's own search at the start proved the win, and the moves played."""
    game = Game(deal(job.seed, 0, job.trumps))
    for move in job.moves:
        game.play(move)
    winner = game.position.turn
    agents = {winner: make_agent(job.winner, Budget()), 1 - winner: make_agent(job.defender, Budget())}
    own = named_budget(job.winner.partition(":")[2])
    first = search(game.position, game.positions[:-1], own.seconds, own.nodes)
    rng = random.Random(job.seed)
    while game.result is None:
        position = game.position
        game.play(agents[position.turn](position, game.positions, rng))
    converted = game.result.winner == winner
    return converted, first.proven and first.score > MATE_BOUND, len(game.moves) - len(job.moves)


def convert(args: argparse.Namespace) -> None:
    """Are proven wins converted? From each of the series' first games, the positions M moves
    before its end that the proof alone (``--prove-nodes``) settles as a win for the mover; the
    winner's agent plays each out against the defender's."""
    start = time.perf_counter()
    befores = [int(m) for m in args.before_end.split(",")]
    jobs = []
    for index, game in enumerate(islice(self_play_games(args.base, args.game_nodes), args.games)):
        seed, trumps = deal_spec(args.base, index)
        last = len(game.positions) - 1
        for m in befores:
            at = with_a_choice(game, last - m) if last >= m else None
            if at is None:
                continue
            proof = prove(game.positions[at], game.positions[:at], nodes=args.prove_nodes)
            if proof.value == WIN:
                jobs.append(ConvertJob(seed, trumps, game.moves[:at], args.winner, args.defender))
    print(
        f"{len(jobs)} starts from {args.games} self-play games ({args.game_nodes} nodes a move, series "
        f"{args.base}), {', '.join(map(str, befores))} moves before the end, proven won by the proof at "
        f"{args.prove_nodes:,} nodes ({time.perf_counter() - start:.0f} s)"
    )
    results = mapped(play_out, jobs, args.jobs)
    converted = sum(won for won, _, _ in results)
    own = [won for won, proven, _ in results if proven]
    print(f"  {args.winner} (the winner) against {args.defender}: converted {converted}/{len(results)}")
    print(f"  of the starts its own first search proved: {sum(own)}/{len(own)}")
    lost = [(m, proven) for (won, proven, m) in results if not won]
    if lost:
        print(f"  not converted (moves played, proven by its own search): {lost}")
    print(f"  {sum(m for _, _, m in results) / max(1, len(results)):.0f} moves a playout, {time.perf_counter() - start:.0f} s")


def game_of_length(base: int, nodes: int, shortest: int, longest: int) -> tuple[int, Game]:
    """The first self-play game of series ``base`` with ``shortest`` to ``longest`` moves, and its index."""
    for index, game in enumerate(self_play_games(base, nodes)):
        if shortest <= len(game.moves) <= longest:
            return index, game
    raise AssertionError("unreachable: the series is endless")


def analysis(args: argparse.Namespace) -> None:
    """A whole game analysed (both players, as ``trumps analyze``), ``--runs`` times: the time of
    each run, its verdicts, whether every run gives the same ones, and each proven value checked
    independently (:func:`check_value`)."""
    index, game = game_of_length(args.base, args.game_nodes, args.moves, args.moves + 20)
    print(
        f"game {index} of series {args.base} (self-play at {args.game_nodes} nodes a move): "
        f"{len(game.moves)} moves; analysed at {args.nodes:,} nodes a position"
    )
    print(f"the search: {engine_build()}")
    cores = args.workers or usable_cores()
    runs: list[list[Verdict]] = []
    for run in range(args.runs):
        began, began_cpu = time.perf_counter(), _cpu_with_workers()
        with search_pool(args.workers) as searches:  # as trumps analyze runs them
            verdicts = list(analyze(game, nodes=args.nodes, map_searches=searches))
        took, cpu = time.perf_counter() - began, _cpu_with_workers() - began_cpu
        kinds = Counter("proven" if v.proven else v.kind for v in verdicts)
        marked = sum(v.mistake or v.grade is not None for v in verdicts)
        # The machine is shared: the CPU time is what a quiet machine would take on one core.
        print(
            f"  run {run + 1}: {took:.1f} s on {cores} core{'s' if cores > 1 else ''} ({cpu:.1f} s of CPU); "
            f"{kinds['proven']} proven, "
            f"{kinds[ESTIMATED]} estimated, "
            f"{kinds[FORCED]} forced; {marked} marked"
        )
        runs.append(verdicts)
    differing = sum(len(set(found)) > 1 for found in zip(*runs, strict=True))
    marks = sum(len({(v.kind, v.grade) for v in found}) > 1 for found in zip(*runs, strict=True))
    print(f"  verdicts that differ between the runs: {differing} of {len(runs[0])} ({marks} in kind or grade)")
    if args.check:
        tally = Tally()
        for verdict in runs[0]:
            if verdict.proven and verdict.before is not None and verdict.before != DRAW:
                # The verdict holds the value, not its length: the search again gives both.
                position, history = game.positions[verdict.index], game.positions[: verdict.index]
                found = search(position, history, nodes=args.nodes)
                tally.add(check_value(position, found.score, args.check) if found.proven else None)
        print(f"  proven wins and losses before a move, checked (agree/not found/open): {tally}")


def _cpu_with_workers() -> float:
    """CPU seconds of this process and of its ended worker processes."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def weights_arg(text: str | None) -> Weights:
    """Evaluation weights from ``"18,68,20,8,90,10"`` (the current defaults when ``None``)."""
    return DEFAULT_WEIGHTS if text is None else Weights(*map(int, text.split(",")))


def tune(args: argparse.Namespace) -> None:
    """Coordinate search: nudge one weight at a time, keep a change that wins a paired match."""
    budget = Budget(args.seconds, args.nodes)
    current = start = weights_arg(args.start)
    baseline = weights_arg(args.baseline) if args.baseline else start
    print(f"tuning from {current}: {budget_text(budget)}, {args.deals} deals x 2 seats a trial")
    base = args.base
    for round_number in range(args.rounds):
        for field in Weights._fields:
            value = getattr(current, field)
            for factor in (1 + args.step, 1 - args.step):
                candidate = current._replace(**{field: max(1, round(value * factor))})
                if candidate == current:
                    continue
                jobs = [
                    PairJob("tuned", "current", budget, *deal_spec(base, i), candidate, current)
                    for i in range(args.deals)
                ]
                base += 1
                mean, half = summary([s for s, _ in mapped(play_pair, jobs, args.jobs)])
                verdict = "kept" if mean - half / 2 > 0.5 else "dropped"
                print(
                    f"  round {round_number + 1} {field}={candidate[Weights._fields.index(field)]}: {mean:.1%} ± {half:.1%} {verdict}"
                )
                if verdict == "kept":
                    current = candidate
                    break
    print(f"result: {current}")
    # The trials chose among noisy results: judge the outcome on deals none of them used.
    jobs = [
        PairJob("tuned", "baseline", budget, *deal_spec(base + 10_000, i), current, baseline)
        for i in range(args.deals)
    ]
    mean, half = summary([s for s, _ in mapped(play_pair, jobs, args.jobs)])
    print(f"result vs {baseline} on fresh deals: {mean:.1%} ± {half:.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)

    def common(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--seconds", type=float, help="thinking time a move")
        sub.add_argument("--nodes", type=int, help="node budget a move (deterministic)")
        sub.add_argument("--deals", type=int, default=20, help="deals, each played twice")
        sub.add_argument("--jobs", type=int, default=1, help="worker processes (the machine is shared)")
        sub.add_argument("--base", type=int, default=1, help="which series of deals")

    sub = commands.add_parser("match", help="two agents over paired deals")
    sub.add_argument(
        "a", help=f"one of {', '.join(AGENTS)}, optionally with a budget: hard:0.05s, hard:3000n"
    )
    sub.add_argument("b")
    common(sub)
    sub.set_defaults(run=match)
    sub = commands.add_parser("table", help="round robin and Elo-like ratings")
    sub.add_argument("--agents", default="greedy,easy,medium,hard:0.05s,expert:0.2s")
    common(sub)
    sub.set_defaults(run=table)
    sub = commands.add_parser("tune", help="tune the evaluation weights by self-play")
    sub.add_argument("--rounds", type=int, default=1)
    sub.add_argument("--step", type=float, default=0.5, help="try each weight times 1 +/- step")
    sub.add_argument("--start", help="weights to start from, comma-separated (default: the current ones)")
    sub.add_argument("--baseline", help="weights the result is finally judged against (default: --start)")
    common(sub)
    sub.set_defaults(run=tune)
    sub = commands.add_parser("horizon", help="share of positions from real games the search proves")
    sub.add_argument("--cards", default="10,12,14,16,18,20,22,24", help="cards in both hands")
    sub.add_argument(
        "--before-end",
        metavar="MOVES",
        help="instead of by cards: by moves before the end of the game (e.g. 4,10,20,40)",
    )
    sub.add_argument("--positions", type=int, default=8, help="positions for each number of cards")
    sub.add_argument("--budgets", help="thinking times, comma-separated (default 0.5,2)")
    sub.add_argument(
        "--nodes", help="instead of thinking times: node budgets of the search, e.g. 300000 (deterministic)"
    )
    sub.add_argument(
        "--check",
        type=int,
        metavar="LIMIT",
        help="check each proven win or loss by plain minimax on the public API, up to LIMIT positions",
    )
    sub.add_argument("--game-nodes", type=int, default=2000, help="the games' node budget a move")
    sub.add_argument(
        "--warm",
        type=int,
        default=0,
        help="first search the player's WARM turns before, keeping a ProofCache",
    )
    sub.add_argument("--base", type=int, default=1, help="which series of deals")
    sub.add_argument(
        "--proof-nodes",
        metavar="NODES",
        help="instead of the search's times: the proof alone, the share settled within each node budget",
    )
    sub.set_defaults(run=horizon)
    sub = commands.add_parser("analysis", help="a whole game analysed: time, verdicts, the same on every run?")
    sub.add_argument("--moves", type=int, default=150, help="the game's length: the first with MOVES to MOVES+20")
    sub.add_argument("--nodes", type=int, default=ANALYSIS_NODES, help="node budget a position")
    sub.add_argument("--runs", type=int, default=2, help="analyse it so many times")
    sub.add_argument("--check", type=int, metavar="LIMIT", help="check proven values by plain minimax")
    sub.add_argument("--game-nodes", type=int, default=2000, help="the games' node budget a move")
    sub.add_argument("--base", type=int, default=1, help="which series of deals")
    sub.add_argument("--workers", type=int, help="worker processes (default: every core, as trumps analyze)")
    sub.set_defaults(run=analysis)
    sub = commands.add_parser("record", help="write the self-play games the benchmarks replay (self_play*.txt)")
    sub.add_argument("--games", type=int, default=48, help="how many games")
    sub.add_argument("--game-nodes", type=int, default=2000, help="the games' node budget a move")
    sub.add_argument("--base", type=int, default=1, help="which series of deals")
    sub.add_argument("--jobs", type=int, default=1, help="worker processes (the machine is shared)")
    sub.set_defaults(run=record)
    sub = commands.add_parser("convert", help="proven wins of real games played out: are they converted?")
    sub.add_argument("--games", type=int, default=12, help="self-play games the starts come from")
    sub.add_argument("--before-end", default="10,20,40", metavar="MOVES", help="moves before the end")
    sub.add_argument("--prove-nodes", type=int, default=1_200_000, help="the proof's budget for a start")
    sub.add_argument("--winner", default="hard:300000n", help="the proven winner's agent")
    sub.add_argument("--defender", default="expert:1200000n", help="the other side's agent")
    sub.add_argument("--game-nodes", type=int, default=2000, help="the games' node budget a move")
    sub.add_argument("--base", type=int, default=1, help="which series of deals")
    sub.add_argument("--jobs", type=int, default=1, help="worker processes (the machine is shared)")
    sub.set_defaults(run=convert)
    for name, run, seconds in (("speed", speed, 0.3), ("solve", solve, 0.3)):
        sub = commands.add_parser(name, help=f"{name} of the search")
        sub.add_argument("--seconds", type=float, default=seconds)
        sub.add_argument("--positions", type=int, default=20)
        sub.add_argument("--base", type=int, default=1)
        if name == "solve":
            sub.add_argument("--cards", default="6,8,10,12,14")
            sub.add_argument(
                "--small", action="store_true", help="small deals instead of self-play positions"
            )
        sub.set_defaults(run=run)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
