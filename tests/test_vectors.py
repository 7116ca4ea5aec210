"""Every conformance vector, read as they are from the repository's copy (tests/vectors/shared)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Move, Position, Rules, deal, shuffled_deck
from tests.conftest import REPO, VECTORS

VOLUNTARY = Rules(pickup="voluntary")


SHARED_VECTORS = REPO.parent / "shared" / "vectors"
"""Where the steering repository's vectors sit when this checkout has them beside it."""


def _load_positions() -> list[dict[str, object]]:
    lines = (VECTORS / "positions.jsonl").read_text(encoding="utf-8").splitlines()
    cases: list[dict[str, object]] = [json.loads(line) for line in lines if line.strip()]
    cases += json.loads((VECTORS / "edge_cases.json").read_text(encoding="utf-8"))
    return cases


POSITION_CASES = _load_positions()


def test_vector_files_are_there() -> None:
    assert len(POSITION_CASES) > 300
    assert (VECTORS / "deals.json").is_file()


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()}


def test_repository_copy_matches_shared_vectors() -> None:
    """A newer set of shared vectors is noticed: the copy must be refreshed (tests/vectors/README.md)."""
    if not SHARED_VECTORS.is_dir():
        pytest.skip(f"no shared vectors beside this checkout ({SHARED_VECTORS}) to compare the copy with")
    shared, copy = _files(SHARED_VECTORS), _files(VECTORS)
    assert sorted(copy) == sorted(shared), "the copy has other files than shared/vectors"
    changed = [name for name in shared if copy[name] != shared[name]]
    assert not changed, f"tests/vectors/shared differs from {SHARED_VECTORS} in {changed}: copy it again"


def test_deals() -> None:
    cases = json.loads((VECTORS / "deals.json").read_text(encoding="utf-8"))
    assert cases
    for case in cases:
        seed = bytes.fromhex(case["seed"])
        assert " ".join(map(str, shuffled_deck(seed))) == case["deck"], case["seed"]
        rules = Rules(sixes=case["sixes"])
        dealt = deal(seed, case["dealer"], case["trumps"], rules)
        assert dealt.notation() == case["position"], case


@pytest.mark.parametrize(
    ("seed", "deck"),
    [
        (
            b"",
            "8S 8C 7S 6H JD 9D JS TD QS 6C KC AC TS 7D JC QH QC TC 8D 8H 9S AD AS 9C KS 9H 6D QD 7H 6S KD 7C TH AH JH KH",
        ),
        (
            bytes(32),
            "6S KS JD 8C KH 9H 9S 8D TD KD QC AH JC KC TH QH 9D 6C 7S AS TC AC 8H AD 7H 6H JH QD QS 9C 7C 6D TS 7D 8S JS",
        ),
        (
            bytes(range(32)),
            "8H 6C JS 9D AS KS TH AD JD 7S 9C 8C 8S 8D KD QC AC 9S 9H 7H 7C QH JC QD 7D TD 6S 6D QS TS JH KH TC KC AH 6H",
        ),
    ],
)
def test_notation_md_shuffle_answers(seed: bytes, deck: str) -> None:
    assert " ".join(map(str, shuffled_deck(seed))) == deck


@pytest.mark.parametrize("case", POSITION_CASES, ids=lambda c: str(c.get("why", c["position"]))[:60])
def test_position(case: dict[str, object]) -> None:
    text = str(case["position"])
    forced = Position.from_notation(text)
    voluntary = Position.from_notation(text, VOLUNTARY)
    assert forced.notation() == text
    assert sorted(str(m) for m in forced.legal_moves()) == case["legal"]
    assert sorted(str(m) for m in voluntary.legal_moves()) == case["legal_voluntary"]
    move = Move.parse(str(case["move"]))
    for position in (forced, voluntary):
        after = position.play(move)
        assert after.notation() == case["after"]
        outcome = after.outcome()
        expected = case["outcome_after"]
        if expected is None:
            assert outcome is None
        else:
            assert outcome is not None
            assert outcome.winner == (None if expected == "draw" else int(str(expected)))
