"""Player names: a name whose skeleton is a known name's (a look-alike in ASCII or Latin
letters, an invisible character added) meets that name's key."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p.errors import (
    IdentityChanged,
)
from p2p.identity import KnownPeers, skeleton
from p2p.messages import parse
from tests.support.handshakes import identity


@pytest.mark.parametrize(
    "invisible",
    ["\ufe0f", "\u034f", "\u3164", "\uffa0", "\u115f", "\u17b4", "\u180b", "\U000e0100"],
    ids=[
        "variation-selector",
        "grapheme-joiner",
        "hangul-filler",
        "halfwidth-filler",
        "choseong-filler",
        "khmer-inherent",
        "mongolian-fvs",
        "variation-selector-supplement",
    ],
)
def test_an_invisible_character_does_not_make_a_new_name(tmp_path: Path, invisible: str) -> None:
    """Flaw: Unicode's default-ignorable code points that Python calls printable (variation
    selectors, the combining grapheme joiner, Hangul fillers…) pass the name schema and render as
    nothing, so "bob" + U+FE0F looked exactly like bob but was a new name: another key bound it with
    no warning. TR39's skeleton removes default ignorables; so does :func:`skeleton` now."""
    name = "bob" + invisible
    parse({"t": "hello", "proto": 3, "program": "x", "name": name, "eph": bytes(32)})  # the schema lets it in
    assert skeleton(name) == skeleton("bob")
    peers = KnownPeers(tmp_path / "peers.json")
    peers.check("bob", identity().public)
    with pytest.raises(IdentityChanged, match="looks like bob"):
        peers.check(name, identity().public)


@pytest.mark.parametrize(
    ("known", "look_alike"), [("mallory", "rnallory"), ("Alice", "AIice"), ("bob", "b0b"), ("will", "wi1l")]
)
def test_ascii_look_alikes_of_a_known_name_meet_its_key(tmp_path: Path, known: str, look_alike: str) -> None:
    """Flaw: the skeleton mapped only non-ASCII look-alikes, so "rnallory" (r, n) or "AIice" (a
    capital i) were new names, though TR39's confusables give them the skeletons of "mallory" and
    "Alice". Check: :data:`p2p.identity._ASCII_LOOK_ALIKES` in :func:`skeleton`."""
    peers = KnownPeers(tmp_path / "peers.json")
    peers.check(known, identity().public)
    with pytest.raises(IdentityChanged, match="looks like"):
        peers.check(look_alike, identity().public)


@pytest.mark.parametrize(
    ("known", "look_alike"),
    [
        ("bob", "\u0299ob"),
        ("bob", "\u0253ob"),
        ("bob", "b\u1d0fb"),
        ("dave", "\u0257ave"),
        ("ann", "\u0251nn"),
        ("bob", "b\u0275b"),
        ("bob", "\u0185ob"),
        ("bob", "\ua7b5ob"),
        ("bob", "b\u0254b"),
    ],
    ids=["small-capital-b", "b-with-hook", "small-capital-o", "d-with-hook", "alpha", "barred-o", "tone-six", "beta", "open-o"],
)
def test_latin_look_alikes_of_a_known_name_meet_its_key(tmp_path: Path, known: str, look_alike: str) -> None:
    """Flaw: letters of the Latin script itself that look like plain ones (a small capital, a
    letter with a hook, the Latin alpha) are in no confusables table, so "\u0299ob" was a new name
    beside bob. Check: :func:`p2p.identity._plain_latin` in :func:`skeleton`."""
    peers = KnownPeers(tmp_path / "peers.json")
    peers.check(known, identity().public)
    with pytest.raises(IdentityChanged, match="looks like"):
        peers.check(look_alike, identity().public)
