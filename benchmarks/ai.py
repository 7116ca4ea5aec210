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

Agents: ``random``, ``greedy`` (the one-ply baseline) and the levels of
:data:`engine.ai.LEVELS`. The machine is shared: keep runs bounded (``--jobs``
defaults to 1).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import combinations, count, islice
from pathlib import Path

# Run as a script, this folder heads sys.path and this file would shadow the engine package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from engine import Game, Move, Position, deal  # noqa: E402
from engine.ai import LEVELS, ProofCache, choose  # noqa: E402
from engine.ai.evaluation import DEFAULT_WEIGHTS, Weights  # noqa: E402
from engine.ai.greedy import greedy_move  # noqa: E402
from engine.ai.proof import DRAW, prove  # noqa: E402
from engine.ai.search import search  # noqa: E402

AGENTS = ("random", "greedy", *LEVELS)
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
        # "hard:0.05s" or "hard:3000n": this agent's own budget, so levels can differ in one table.
        value = own[:-1]
        budget = Budget(float(value), None) if own.endswith("s") else Budget(None, int(value))
    if name == "random":
        return lambda position, history, rng: rng.choice(position.legal_moves())
    if name == "greedy":
        return lambda position, history, rng: greedy_move(position, position.legal_moves())
    if name not in LEVELS:
        raise SystemExit(f"unknown agent {name!r}: choose from {', '.join(AGENTS)}")

    def level(position: Position, history: Sequence[Position], rng: random.Random) -> Move:
        return choose(position, name, budget.seconds, budget.nodes, history, rng)

    return level


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


def run_pairs(jobs: list[PairJob], workers: int) -> list[tuple[float, int]]:
    if workers <= 1:
        return [play_pair(job) for job in jobs]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(play_pair, jobs))


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
    results = run_pairs(jobs, args.jobs)
    elapsed = time.perf_counter() - start
    scores = [s for s, _ in results]
    mean, half = summary(scores)
    moves = sum(m for _, m in results)
    print(f"{args.a} vs {args.b}: {budget_text(budget)}, {args.deals} deals x 2 seats")
    print(f"  score {mean:.1%} ± {half:.1%} (95% CI), Elo {elo(mean):+.0f}")
    print(f"  {2 * args.deals} games, {moves / (2 * args.deals):.0f} moves a game, {elapsed:.0f} s")


def budget_text(budget: Budget) -> str:
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
        mean, half = summary([s for s, _ in run_pairs(jobs, args.jobs)])
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


def speed(args: argparse.Namespace) -> None:
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


def self_play_games(base: int, nodes: int) -> Iterator[Game]:
    """The finished games of the deals of series ``base``, in order, played by the alpha-beta search
    alone at ``nodes`` a move (deterministic, and the same games however the proofs change)."""
    for index in count():
        seed, trumps = deal_spec(base, index)
        game = Game(deal(seed, 0, trumps))
        while game.result is None:
            position = game.position
            moves = position.legal_moves()
            game.play(moves[0] if len(moves) == 1 else search(position, game.positions[:-1], nodes=nodes, proof_share=0).move)
        yield game


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
    moves before the end of the game."""
    budgets = sorted(float(b) for b in args.budgets.split(","))
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
    header = "  ".join(f"proven in {b:g} s (draws)" for b in budgets)
    print(f"   {label}  {header}  median time to proof  nodes/s")
    for n in rows:
        proofs: dict[float, list[tuple[float, int]]] = {b: [] for b in budgets}
        nodes = 0
        spent = 0.0
        for position, history in found[n]:
            for budget in budgets:
                cache = ProofCache() if args.warm else None
                for earlier in own_turns(history, position.turn)[-args.warm :] if args.warm else ():
                    # The searches the player made at its own turns before, with one cache, as in a game.
                    search(history[earlier], history[:earlier], seconds=budget, cache=cache)
                began = time.perf_counter()
                result = search(position, history, seconds=budget, cache=cache)
                took = time.perf_counter() - began
                nodes += result.nodes
                spent += took
                if result.proven:
                    # A proof within this budget is one within every longer one: skip those runs.
                    for longer in budgets[budgets.index(budget) :]:
                        proofs[longer].append((took, result.score))
                    break
        total = len(found[n])
        cells = "  ".join(
            f"{len(proofs[b]):>3}/{total:<3} ({sum(s == 0 for _, s in proofs[b])})".ljust(
                len(f"proven in {b:g} s (draws)")
            )
            for b in budgets
        )
        times = sorted(t for t, _ in proofs[budgets[-1]])
        median = f"{times[len(times) // 2]:.3f} s" if times else "-"
        print(f"  {n:2}  {cells}  {median:>20}  {nodes / spent if spent else 0:>8,.0f}")
    print(f"total {time.perf_counter() - start:.0f} s")


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
                mean, half = summary([s for s, _ in run_pairs(jobs, args.jobs)])
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
    mean, half = summary([s for s, _ in run_pairs(jobs, args.jobs)])
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
    sub.add_argument("--budgets", default="0.5,2", help="thinking times, comma-separated")
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
