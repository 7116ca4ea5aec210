"""What the AI's searches find on a fixed set of positions, comparable across builds of the engine.

tests/test_ai_compiled.py runs :func:`findings` on the pure source and, in a process of its own,
on the search compiled by mypyc (hatch_build.py); the two must be equal.

``python -m tests.support.differential COUNT MODULE...``: the findings as JSON, after checking that
each MODULE (those the wheel holds compiled) was imported compiled, not from its source.
"""

from __future__ import annotations

import importlib
import json
import pickle
import random
import sys
from collections.abc import Iterator, Sequence

from engine import Game, Position, Rules
from engine.ai.greedy import greedy_move
from engine.ai.proof import prove
from engine.ai.search import search
from tests.test_ai_exact import random_endgame

NODES = 600
"""Each search's budget: small, so that thousands of positions take seconds, and deterministic."""

Finding = list[object]


def positions(count: int) -> Iterator[tuple[Position, Sequence[Position]]]:
    """``count`` positions with a choice of moves, each with the history before it: half random
    endgames of up to 10 cards (where proofs finish and repetitions are met), half from random games
    under both pick-up rules, spread over each game and its last moves."""
    rng = random.Random(0)
    for _ in range(count // 2):
        yield random_endgame(rng, 10), ()
    made = count // 2
    for seed in range(10 * count):
        rng = random.Random(seed)
        rules = Rules(pickup=rng.choice(("forced", "voluntary")))
        game = Game.from_deal(rng.randbytes(32), rng.randrange(2), "".join(rng.sample("SHDC", 2)), rules)
        while game.result is None:
            game.play(rng.choice(game.position.legal_moves()))
        chosen = [i for i, p in enumerate(game.positions[:-1]) if len(p.legal_moves()) > 1]
        for index in sorted({*chosen[:: max(1, len(chosen) // 8)], *chosen[-16:]}):
            if made == count:
                return
            yield game.positions[index], game.positions[:index]
            made += 1


def findings(count: int) -> list[Finding]:
    """For each of :func:`positions`: the proof, the search (and its result through pickle, as the
    analysis's workers send it) and the greedy move, as plain values."""
    found = []
    for position, history in positions(count):
        proof = prove(position, history, nodes=NODES)
        result = search(position, history, nodes=NODES)
        found.append(
            [
                position.notation(),
                [proof.value, proof.move, proof.length, proof.depth, proof.nodes, sorted(proof.losing)],
                [str(result.move), result.score, result.depth, result.nodes, result.proven],
                pickle.loads(pickle.dumps(result)) == result,
                str(greedy_move(position, position.legal_moves())),
            ]
        )
    return found


def main(arguments: Sequence[str]) -> None:
    count, *compiled = arguments
    pure = [name for name in compiled if str(importlib.import_module(name).__file__).endswith(".py")]
    if pure:
        sys.exit(f"imported from the source, not compiled: {', '.join(pure)}")
    json.dump(findings(int(count)), sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
