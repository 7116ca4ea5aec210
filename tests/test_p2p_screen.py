"""The network opponent of the full-screen game, driven the way the app drives it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cli.app.network_opponent import NetworkOpponent
from cli.app.opponent import OpponentLeft
from engine import Game, Rules
from p2p.duel import Duel
from p2p.handshake import Terms
from p2p.players import BotPlayer
from tests.test_p2p_helpers import Side, connect_pair, run


async def _screen_against_bot(
    root: Path, games: int, quit_after: int | None = None
) -> tuple[list[str], object]:
    ann, bob = Side.make(root, "ann"), Side.make(root, "bob")
    pair = await connect_pair(ann, bob, Terms(Rules(), games))
    bot = asyncio.create_task(
        Duel(
            pair.join_channel, pair.join_session, bob.me, BotPlayer("easy", seed=4), bob.home.records, 5
        ).run()
    )
    opponent = NetworkOpponent(pair.host_channel, pair.host_session, ann.me, ann.home)
    lines: list[str] = []
    opponent.attach(lines.append)
    dealer = None
    results = []
    for number in range(1, games + 1):
        deal = await opponent.deal(number, dealer, "S")
        game = Game.from_deal(deal.seed, deal.dealer, deal.trumps, Rules())
        assert deal.me == 0 and deal.trumps[0] in "SH"
        while game.result is None:
            if quit_after is not None and len(game.moves) >= quit_after:
                opponent.close()
                report = await opponent.finished()
                assert (await bot).end == "aborted"
                return lines, report
            if game.position.turn == deal.me:
                move = game.position.legal_moves()[-1]
                game.play(move)
                opponent.played(game, move)
                if len(game.moves) == 1:
                    opponent.say("good luck")
            else:
                game.play(await opponent.move(game))
        results.append(game.result)
        winner = game.result.winner
        dealer = 1 - deal.dealer if winner is None else 1 - winner
    report = await opponent.finished()
    bot_report = await bot
    assert [r.outcome for r in bot_report.match.results] == results
    with pytest.raises(OpponentLeft, match="over"):
        await opponent.deal(games + 1, dealer, "S")
    return lines, report


def test_the_screen_plays_a_whole_match_through_the_network_opponent(tmp_path: Path) -> None:
    lines, report = run(_screen_against_bot(tmp_path, games=2))
    assert report.end == "complete"  # type: ignore[attr-defined]
    assert "Verification code" in lines[0]


def test_leaving_the_screen_ends_the_duel_as_quit(tmp_path: Path) -> None:
    _, report = run(_screen_against_bot(tmp_path, games=1, quit_after=3))
    assert report.end == "quit"  # type: ignore[attr-defined]
