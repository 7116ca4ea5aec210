"""The network opponent of the full-screen game, driven the way the app drives it."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import pytest

from cli import storage
from cli.app.network_opponent import NetworkOpponent
from cli.app.opponent import Deal, OpponentLeft
from cli.app.score import MatchScore as ScreenMatch
from cli.app.score import points_text
from cli.history import history_rows
from cli.net.progress import Progress
from cli.net.running import finish
from engine import Game, Outcome, Rules
from p2p.duel import Duel, Report
from p2p.errors import MatchRecordError
from p2p.handshake import Terms
from p2p.liveness import Patience
from p2p.players import BotPlayer
from p2p.record import verify
from tests.screen_table import Notes
from tests.support.peers import Pair, Side, connect_pair, run

pytestmark = pytest.mark.net

if TYPE_CHECKING:
    from prompt_toolkit.input import PipeInput

    from p2p.channel import Channel
    from p2p.connect import Listener
    from p2p.handshake import Session
    from p2p.invite import Invite


async def _drive(opponent: NetworkOpponent, games: int, total: int, notes: Notes) -> list[Outcome]:
    """Play ``total`` games as the app does (rematches after every ``games``), moving instantly."""
    opponent.attach(notes)
    screen = ScreenMatch(games, opponent.seat)
    outcomes = []
    for number in range(1, total + 1):
        if screen.over:
            screen = screen.rematch()
        deal = await opponent.deal(number, screen.next_dealer, "S")
        if screen.next_dealer is not None:
            assert deal.dealer == screen.next_dealer  # the app's dealing rule and the protocol's agree
        game = Game.from_deal(deal.seed, deal.dealer, deal.trumps, Rules())
        while game.result is None:
            if game.position.turn == deal.me:
                move = game.position.legal_moves()[-1]
                game.play(move)
                opponent.played(game, move)
                if len(game.moves) <= 2:
                    opponent.say(f"hello from {deal.me}")
            else:
                game.play(await opponent.move(game))
        screen.finish_game(deal.dealer, game.result)
        outcomes.append(game.result)
    return outcomes


async def _pair(root: Path, games: int) -> Pair:
    return await connect_pair(Side.make(root, "ann"), Side.make(root, "bob"), Terms(Rules(), games))


def test_the_screen_plays_a_whole_match_against_a_bot(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[str], Report, Report]:
        pair = await _pair(tmp_path, 2)
        bob = pair.joiner
        bot = asyncio.create_task(
            Duel(
                pair.join_channel, pair.join_session, bob.me, BotPlayer("easy", seed=4), bob.home.records, 5
            ).run()
        )
        opponent = NetworkOpponent(pair.host_channel, pair.host_session, pair.host.me, pair.host.home)
        notes = Notes()
        outcomes = await _drive(opponent, 2, 2, notes)
        bot_report = await bot
        assert [r.outcome for r in bot_report.match.results] == outcomes
        await pair.join_channel.close()  # the bot wants no rematch
        with pytest.raises(OpponentLeft, match="bob left"):
            await opponent.deal(3, 0, "S")
        opponent.close()
        return notes.chats, await opponent.finished(), bot_report

    lines, report, _ = run(scenario())
    assert report.end == "complete"
    assert "Verification code" in lines[0]


def test_two_screens_play_a_match_and_a_rematch_with_chat(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[str], list[str], NetworkOpponent, NetworkOpponent]:
        pair = await _pair(tmp_path, 2)
        ann = NetworkOpponent(pair.host_channel, pair.host_session, pair.host.me, pair.host.home)
        bob = NetworkOpponent(pair.join_channel, pair.join_session, pair.joiner.me, pair.joiner.home)
        ann_notes, bob_notes = Notes(), Notes()
        ann_view, bob_view = await asyncio.gather(_drive(ann, 2, 4, ann_notes), _drive(bob, 2, 4, bob_notes))
        assert ann_view == bob_view
        ann.close()
        bob.close()
        reports[:] = await asyncio.gather(ann.finished(), bob.finished())
        return ann_notes.chats, bob_notes.chats, ann, bob

    reports: list[Report] = []
    ann_lines, bob_lines, ann, bob = run(scenario())
    # the exit summary counts the whole series, each match's records too (issue 22, item 4)
    said = io.StringIO()
    progress = Progress(stream=said)
    assert finish(reports[0], False, progress) == 0
    lines = said.getvalue().splitlines()
    assert lines[0] == "Match 1 of 2:" and "Match 2 of 2:" in lines
    assert sum(line.startswith("  Record: ") for line in lines) == 1  # the first's; the last closes it
    assert lines[-1].startswith("Record: ") and "trumps verify" in lines[-1]
    assert sum(bool(re.match(r"  (You|bob) won game [12]: |  Game [12] was a draw", line)) for line in lines) == 4
    halves = [0, 0]
    for path in ann.home.records.glob("*.jsonl"):
        match = verify(path.read_text()).match
        halves = [halves[seat] + round(2 * match.score[seat]) for seat in (0, 1)]
    score = f"you {points_text(halves[0])}, bob {points_text(halves[1])}"
    assert any(line.startswith(f"Score over the 2 matches: {score} (the last one: ") for line in lines), lines
    assert "bob: hello from 1" in ann_lines and "ann: hello from 0" in bob_lines
    assert any("Rematch" in line for line in ann_lines)
    for opponent in (ann, bob):
        verified = verify(opponent.duel.files.path.read_text())  # the rematch's own record
        assert verified.complete and len(verified.match.results) == 2
        assert verified.match.session_id != opponent.session.session_id
        records = list(opponent.home.records.glob("*.jsonl"))
        assert len(records) == 2 and all(verify(path.read_text()).complete for path in records)
    header, *rest = ann.duel.files.path.read_text().splitlines(keepends=True)
    row = json.loads(header)
    row["rematch_of"]["dealer"] = 1 - row["rematch_of"]["dealer"]
    with pytest.raises(MatchRecordError, match=r"line 2: .* bad signature"):
        verify(json.dumps(row) + "\n" + "".join(rest))
    row["rematch_of"]["finals"].reverse()
    with pytest.raises(MatchRecordError, match="signature of the previous match's end does not verify"):
        verify(json.dumps(row) + "\n" + "".join(rest))


def test_leaving_the_screen_ends_the_duel_as_quit(tmp_path: Path) -> None:
    async def scenario() -> tuple[Report, Report]:
        pair = await _pair(tmp_path, 1)
        bob = pair.joiner
        bot = asyncio.create_task(
            Duel(pair.join_channel, pair.join_session, bob.me, BotPlayer("easy"), bob.home.records, 5).run()
        )
        opponent = NetworkOpponent(pair.host_channel, pair.host_session, pair.host.me, pair.host.home)
        opponent.attach(Notes())
        await opponent.deal(1, None, "H")
        opponent.close()
        report = await opponent.finished()
        bot_report = await bot
        await pair.join_channel.close()
        return report, bot_report

    report, bot_report = run(scenario())
    assert report.end == "quit" and bot_report.end == "abandoned"
    # defect 9: the one who left counts the game it forfeited as the one who stayed does
    assert report.score == bot_report.score == (0.0, 1.0) and report.results == bot_report.results
    assert not verify(report.record.read_text()).complete
    note = verify(bot_report.record.read_text()).end
    assert (
        note is not None
        and note["end"] == "abandoned"
        and "after the deal of game 1 was revealed" in note["detail"]
    )


def test_a_whole_network_game_on_the_full_screen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real app, keys through a pipe: choose a trump, play by Tab and Enter, decline another match."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from cli.app import questions
    from cli.app.duel_screen import play_duel

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "screen-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "screen-config"))
    monkeypatch.setattr(questions, "RESULT_GRACE", 0.3)  # a late key of the game answers nothing

    async def scenario() -> tuple[Report, Report]:
        pair = await _pair(tmp_path, 1)
        bob = pair.joiner
        bot_duel = Duel(pair.join_channel, pair.join_session, bob.me, BotPlayer("easy"), bob.home.records, 10)
        bot = asyncio.create_task(bot_duel.run())
        with create_pipe_input() as pipe:
            screen = asyncio.create_task(
                play_duel(
                    pair.host_channel,
                    pair.host_session,
                    pair.host.me,
                    pair.host.home,
                    input=pipe,
                    output=DummyOutput(),
                )
            )
            await asyncio.sleep(0.05)
            pipe.send_text("c\r")  # the trump question
            sent: tuple[int, float] = (-1, 0.0)
            while not bot_duel.match.results:
                game, now = bot_duel.match.game, asyncio.get_running_loop().time()
                ours = game is not None and game.result is None and game.position.turn == 0
                if ours and game is not None and (sent[0] != len(game.moves) or now - sent[1] > 0.5):
                    pipe.send_text("\t\r")  # complete a legal move and play it, once per turn
                    sent = (len(game.moves), now)
                await asyncio.sleep(0.01)
            await bot
            while not screen.done():  # no other match (again, should the question come late)
                pipe.send_text("n\r")
                await asyncio.wait({screen}, timeout=0.2)
            report = await screen
        await pair.join_channel.close()
        return report, await bot

    report, bot_report = run(scenario())
    assert report.end == bot_report.end == "complete"
    assert report.match.transcript == bot_report.match.transcript
    assert verify(report.record.read_text()).complete


def test_the_screen_shows_reconnecting_and_offers_the_claim(tmp_path: Path) -> None:
    """A cut line: the status slot says so and the game goes on; /claim is refused while it is early."""
    from p2p.connect import Redial, join
    from tests.support.lines import Fault
    from tests.support.peers import accept_all
    from tests.test_p2p_resume import resilient

    async def play() -> tuple[Notes, list[Outcome], Report]:
        async with resilient(tmp_path, {0: Fault("cut", 2500)}) as net:
            channel, session = await join(net.invite, net.bob.me, "bob", net.bob.known, accept_all)
            host_channel, host_session = await net.listener.first()
            patience = Patience(keepalive=0.2, silent_after=0.5, dead_after=1.5, forfeit_after=30)
            bot = Duel(host_channel, host_session, net.ann.me, BotPlayer("easy"), net.ann.home.records, 10,
                       None, net.listener, patience)  # fmt: skip
            redial = Redial(net.invite, net.bob.me, "bob", net.bob.known, session, 0.05, 0.2)
            opponent = NetworkOpponent(channel, session, net.bob.me, net.bob.home, redial, patience)
            hosting = asyncio.create_task(bot.run())
            notes = Notes()
            outcomes = await _drive(opponent, 1, 1, notes)
            opponent.say("/claim")
            await hosting
            opponent.close()
            return notes, outcomes, await opponent.finished()

    notes, outcomes, report = run(play())
    assert report.end == "complete" and report.reconnects == 1 and len(outcomes) == 1
    assert "ann is not away long enough to claim the game." in notes.chats
    assert any(line.startswith("connection to ann lost") for line in notes.statuses)
    back = notes.statuses.index("reconnected to ann: the match goes on")
    assert "" in notes.statuses[back:]  # ann's next move clears it: the line works again
    assert not notes.offers and not notes.ended


def test_a_silent_peer_is_shown_offered_for_claiming_and_forfeits(tmp_path: Path) -> None:
    """The peer never answers: the status slot says so, the screen is offered the claim, and the
    claim ends the game as a forfeit awarded to the waiting player."""

    async def scenario() -> tuple[Notes, Report, OpponentLeft]:
        pair = await _pair(tmp_path, 1)
        patience = Patience(keepalive=0.1, silent_after=0.2, dead_after=30, forfeit_after=0.6)
        opponent = NetworkOpponent(
            pair.host_channel, pair.host_session, pair.host.me, pair.host.home, patience=patience
        )
        notes = Notes()
        opponent.attach(notes)
        deal = asyncio.ensure_future(opponent.deal(1, None, "H"))
        while not notes.offers:
            await asyncio.sleep(0.05)
        # silent, and so also owing its commit past the limit: either reason offers the claim
        assert len(notes.offers) == 1
        assert str(notes.offers[0]).startswith(("bob has been silent for", "bob did not send its commit"))
        assert notes.chats[-1].startswith("Playing bob")  # status lines never go to the chat line
        assert any("bob silent for" in line for line in notes.statuses)
        assert opponent.claim()
        with pytest.raises(OpponentLeft) as left:
            await deal
        opponent.close()
        report = await opponent.finished()
        # bob wakes up (a stopped program) and reads what ann sent meanwhile: the claim
        bob = NetworkOpponent(pair.join_channel, pair.join_session, pair.joiner.me, pair.joiner.home)
        bob_notes = Notes()
        bob.attach(bob_notes)
        while not bob_notes.ended:
            await asyncio.sleep(0.05)
        bob.close()
        await bob.finished()
        # ann's claim is her unsigned account: bob's screen reports it but never gives her the game
        assert str(bob_notes.ended[0]) == "ann says you were away too long, and ended the match."
        assert bob_notes.ended[0].awarded is None
        return notes, report, left.value

    notes, report, left = run(scenario())
    assert report.end == "forfeit" and report.awarded == 0
    assert str(left) == "bob stayed away too long" and left.awarded == 0
    assert [str(e) for e in notes.ended] == ["bob stayed away too long"] and notes.ended[0].awarded == 0
    note = verify(report.record.read_text()).end
    assert note is not None and note["end"] == "forfeit" and "claimed by forfeit" in note["detail"]


def test_connections_the_host_refuses_are_shown_in_the_status_slot(tmp_path: Path) -> None:
    """Issue 13, defect 1: a stranger knocking during the match is reported on the screen's status
    line, not written to the terminal behind the full screen."""
    from p2p.connect import join
    from p2p.errors import InviteRefused
    from p2p.invite import Invite, new_secret
    from tests.support.peers import accept_all
    from tests.test_p2p_resume import resilient

    async def play() -> Notes:
        async with resilient(tmp_path, {}) as net:
            channel, _ = await join(net.invite, net.bob.me, "bob", net.bob.known, accept_all)
            host_channel, host_session = await net.listener.first()
            opponent = NetworkOpponent(host_channel, host_session, net.ann.me, net.ann.home, net.listener)
            notes = Notes()
            opponent.attach(notes)
            stranger = Side.make(tmp_path, "eve")
            guessed = Invite(net.invite.addresses, net.invite.fingerprint, new_secret())
            with pytest.raises(InviteRefused):
                await join(guessed, stranger.me, "eve", stranger.known, accept_all)
            while not any("refused a connection" in line for line in notes.statuses):
                await asyncio.sleep(0.01)
            opponent.close()
            await opponent.finished()
            await channel.close()
            return notes

    notes = run(play())
    assert any("did not prove the invite's secret" in line for line in notes.statuses)


async def first_deals(pair: Pair, trumps: tuple[str, str], ann_choice: str | None = None) -> tuple[Deal, Deal]:
    """The first deal of a duel on both screens, ann (the host) asking ``trumps[0]`` (with
    ``ann_choice``: her ``--trump``), bob ``trumps[1]``; then both leave."""
    ann = NetworkOpponent(pair.host_channel, pair.host_session, pair.host.me, pair.host.home, choice=ann_choice)
    bob = NetworkOpponent(pair.join_channel, pair.join_session, pair.joiner.me, pair.joiner.home)
    ann.attach(Notes())
    bob.attach(Notes())
    deals = await asyncio.gather(ann.deal(1, None, trumps[0]), bob.deal(1, None, trumps[1]))
    ann.close()
    bob.close()
    await asyncio.gather(ann.finished(), bob.finished())
    return deals


def test_both_screens_say_who_keeps_the_suit_both_asked_for(tmp_path: Path) -> None:
    """Defect 3: both ask for spades; the one not dealing keeps them, and both screens say so.
    Neither named a second choice: none is invented (issue 22, item 5)."""

    async def scenario() -> tuple[Deal, Deal]:
        return await first_deals(await _pair(tmp_path, 1), ("S", "S"))

    ann, bob = run(scenario())
    dealer = ann.dealer
    assert ann.trumps == bob.trumps and ann.trumps[1 - dealer] == "S" and ann.trumps[dealer] == "H"
    dealing, keeping = (ann, bob) if dealer == ann.me else (bob, ann)
    dealer_name, keeper_name = ("ann", "bob") if dealing is ann else ("bob", "ann")
    assert dealing.note == (
        f"You both asked for ♠: {keeper_name} keeps it, not dealing; you deal and get ♥, the suit after it "
        "(you named no second choice)."
    )
    assert keeping.note == f"You both asked for ♠: you keep it, not dealing; {dealer_name} deals and gets ♥."
    assert "second choice" not in keeping.note  # the peer's: nothing says it named one


def test_a_second_choice_named_is_called_one(tmp_path: Path) -> None:
    """ann gave --trump SD: when she deals she takes her second choice, and is told so."""
    for attempt in range(8):  # the first dealer is the shared coin's: play until ann deals
        async def scenario(folder: Path = tmp_path / str(attempt)) -> tuple[Deal, Deal]:
            return await first_deals(await _pair(folder, 1), ("S", "S"), ann_choice="SD")

        ann, bob = run(scenario())
        if ann.dealer == ann.me:
            assert ann.trumps[ann.me] == "D"
            assert ann.note == "You both asked for ♠: bob keeps it, not dealing; you deal and take your second choice, ♦."
            assert bob.note == "You both asked for ♠: you keep it, not dealing; ann deals and gets ♦."
            return
    pytest.skip("the coin never gave ann the deal")


def test_different_first_choices_need_no_word(tmp_path: Path) -> None:
    async def scenario() -> tuple[Deal, Deal]:
        return await first_deals(await _pair(tmp_path, 1), ("S", "D"))

    ann, bob = run(scenario())
    assert ann.trumps == "SD" and ann.note == bob.note == ""


async def _play_by_keys(pipe: PipeInput, duel: Callable[[], Duel], seat: int, done: Callable[[], bool]) -> None:
    """Play ``seat``'s moves on the screen by Tab and Enter (once per turn, again should a key come
    early) and say yes to the next game and match, until ``done()``; ``duel()`` is the peer's duel
    of the match in play (a rematch has its own). Bounded by the test's limit on the match."""
    sent: tuple[int, int, int, float] = (0, 0, -1, 0.0)
    while not done():
        playing = duel()
        match, now = playing.match, asyncio.get_running_loop().time()
        game = match.game
        ours = game is not None and game.result is None and game.position.turn == seat
        where = (id(playing), match.number, -1 if game is None else len(game.moves))
        if (sent[:3] != where and ours) or now - sent[3] > 0.5:
            pipe.send_text("\t\r" if ours else "\r")  # play a legal move; yes, the next game
            sent = (*where, now)
        await asyncio.sleep(0.01)


class Joined(NamedTuple):
    """Ann's listener and invite, bob's side of the connection and ann's."""

    listener: Listener
    invite: Invite
    channel: Channel
    session: Session
    host_channel: Channel
    host_session: Session


@contextlib.asynccontextmanager
async def _joined(ann: Side, bob: Side, games: int) -> AsyncIterator[Joined]:
    """Ann listening on loopback (a :class:`~p2p.connect.Listener`, bob's way back after a restart)
    and bob joined by her invite."""
    from p2p.connect import Listener, join, listening_socket
    from tests.support.peers import accept_all

    sock = listening_socket("127.0.0.1", 0)
    async with Listener(sock, ann.me, "ann", Terms(Rules(), games), ann.known) as listener:
        invite = listener.invite([("127.0.0.1", sock.getsockname()[1])])
        channel, session = await join(invite, bob.me, "bob", bob.known, accept_all)
        yield Joined(listener, invite, channel, session, *await listener.first())


def test_a_paused_screen_duel_continues_on_a_new_screen_at_the_same_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12, item 4, on the full screen: bob's program is stopped (SIGHUP: ``PAUSE``) in the
    middle of a game; ann's bot waits; bob's next screen starts at the chain's position, his
    moves so far on the table, and the match completes with one transcript on both sides."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from cli.app import questions
    from cli.app import screen as screen_module
    from cli.app.duel_screen import play_duel
    from p2p.connect import Redial
    from p2p.duel_machine import PAUSE
    from p2p.saved import SavedMatch, load_saved, restore

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "screen-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "screen-config"))
    monkeypatch.setattr(questions, "RESULT_GRACE", 0.3)
    screens: list[screen_module.GameScreen] = []
    start = screen_module.GameScreen.start

    def start_watched(self: screen_module.GameScreen) -> None:
        screens.append(self)
        start(self)

    monkeypatch.setattr(screen_module.GameScreen, "start", start_watched)
    state = tmp_path / "bob-unfinished.json"
    ann_side, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")

    async def scenario() -> tuple[Report, Report, int, list[str]]:
        async with _joined(ann_side, bob, 2) as net:
            invite, channel, session = net.invite, net.channel, net.session
            patience = Patience(forfeit_after=30)
            statuses: list[str] = []
            ann = Duel(net.host_channel, net.host_session, ann_side.me, BotPlayer("easy"), ann_side.home.records,
                       30, None, net.listener, patience, statuses.append)  # fmt: skip
            hosting = asyncio.create_task(ann.run())
            redial = Redial(invite, bob.me, "bob", bob.known, session, 0.05, 0.2)
            with create_pipe_input() as pipe:
                first = asyncio.create_task(
                    play_duel(channel, session, bob.me, bob.home, redial, SavedMatch(state), None,
                              input=pipe, output=DummyOutput())
                )  # fmt: skip
                await asyncio.sleep(0.05)
                pipe.send_text("c\r")  # the trump question
                while screens[0].line.question is not None:
                    await asyncio.sleep(0.01)
                pipe.send_text('"back soon\r')  # a chat line, which the restarted screen shows again
                mid_game = lambda: ann.match.number == 2 and ann.match.game is not None and len(ann.match.game.moves) >= 3  # noqa: E731
                await _play_by_keys(pipe, lambda: ann, session.seat, mid_game)
                first.cancel(PAUSE)  # what SIGHUP and SIGTERM do
                with pytest.raises(asyncio.CancelledError):
                    await first
            assert not hosting.done()  # ann waits for bob's program to come back
            restored = restore(saved := load_saved(state), bob.me)
            moves = restored.match.game.moves if restored.match.game is not None else ()
            redial = Redial(invite, bob.me, "bob", bob.known, restored.session, 0.05, 0.2)
            channel = (await redial.reconnect())[0]
            with create_pipe_input() as pipe:
                second = asyncio.create_task(
                    play_duel(channel, restored.session, bob.me, bob.home, redial, saved, restored,
                              input=pipe, output=DummyOutput())
                )  # fmt: skip
                while len(screens) < 2:
                    await asyncio.sleep(0.01)
                continued = screens[1].flow.game
                assert continued is not None and continued.moves == moves  # on the table, no new deal
                assert "Verification code" in screens[0].chats.lines[0]
                # the chat as it was (issue 22, item 14), then the note that the match goes on
                assert screens[1].chats.lines[:2] == [
                    "You: back soon", "Playing ann again: the match you both checked goes on."
                ]
                assert screens[1].flow.match.played == 1  # game 1 counts in the score
                await _play_by_keys(pipe, lambda: ann, session.seat, hosting.done)
                while not second.done():  # no other match
                    pipe.send_text("n\r")
                    await asyncio.wait({second}, timeout=0.2)
                report = await second
            await net.host_channel.close()
            return report, await hosting, len(moves), statuses

    report, host_report, moves, statuses = run(scenario())
    assert moves >= 3
    assert any("bob's program stopped" in line for line in statuses)
    assert report.end == host_report.end == "complete", (report.error, host_report.error)
    assert report.match.transcript == host_report.match.transcript
    for side in (report, host_report):
        verified = verify(side.record.read_text())
        assert verified.complete and verified.match.transcript == report.match.transcript
    assert not state.exists()  # the match ended: nothing left to continue
    assert not state.with_name(state.name + ".chat").exists()  # nor its chat
    records = list((tmp_path / "bob" / "data").rglob("matches/*.jsonl"))
    assert len(records) == 1  # one record, continued
    # the history lists each game once: the screen's record of the interrupted game was continued
    games = storage.record_paths()
    rows = history_rows(games, records)
    assert len(games) == 2 and [row.file for row in rows] == [path.name for path in games]
    assert all(row.result.split()[0] in ("won", "lost", "draw") for row in rows), rows
    assert {row.opponent for row in rows} == {"ann"} and all(row.date[:2] == "20" for row in rows), rows


def test_a_rematch_after_a_continued_match_is_restart_safe_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob's program is stopped (``PAUSE``) in the match, continued on a new screen, and stopped
    again in the rematch that follows: the rematch's state is on disk as the match's was, his third
    screen continues it at the same move, with the score of the whole series as his second screen
    showed it (the match's game too, not the rematch's alone), and both rematch records end
    complete, one transcript."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from cli.app import questions
    from cli.app import screen as screen_module
    from cli.app.duel_screen import play_duel
    from p2p.connect import Redial
    from p2p.duel_machine import PAUSE
    from p2p.saved import SavedMatch, load_saved, restore

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "screen-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "screen-config"))
    monkeypatch.setattr(questions, "RESULT_GRACE", 0.3)
    screens: list[tuple[screen_module.GameScreen, ScreenMatch]] = []  # each screen, its score at the start
    start = screen_module.GameScreen.start

    def starting(screen: screen_module.GameScreen) -> None:
        start(screen)
        screens.append((screen, replace(screen.flow.match, halves=list(screen.flow.match.halves))))

    monkeypatch.setattr(screen_module.GameScreen, "start", starting)
    state = tmp_path / "bob-unfinished.json"
    ann_side, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")

    async def scenario() -> tuple[Report, Report, list[tuple[bytes, int]]]:
        async with _joined(ann_side, bob, 1) as net:
            invite, channel, session = net.invite, net.channel, net.session
            patience = Patience(forfeit_after=30)
            ann = NetworkOpponent(net.host_channel, net.host_session, ann_side.me, ann_side.home, net.listener,
                                  patience)  # fmt: skip
            hosting = asyncio.create_task(_drive(ann, 1, 2, Notes()))  # a match and its rematch

            def mid_game(offset: int) -> Callable[[], bool]:
                """Bob stops at the third move of the match (``offset`` 0) or of the rematch (1)."""

                def reached() -> bool:
                    game = ann.duel.match.game
                    return ann._offset == offset and game is not None and len(game.moves) >= 2

                return reached

            saved, restored = SavedMatch(state), None
            stopped: list[tuple[bytes, int]] = []
            for stop in (mid_game(0), mid_game(1), hosting.done):
                redial = Redial(invite, bob.me, "bob", bob.known, session, 0.05, 0.2)
                if restored is not None:
                    channel = (await redial.reconnect())[0]
                with create_pipe_input() as pipe:
                    screen = asyncio.create_task(
                        play_duel(channel, session, bob.me, bob.home, redial, saved, restored,
                                  patience=patience, input=pipe, output=DummyOutput())
                    )  # fmt: skip
                    if restored is None:
                        await asyncio.sleep(0.05)
                        pipe.send_text("c\r")  # the trump question
                    await _play_by_keys(pipe, lambda: ann.duel, session.seat, stop)
                    if stop == hosting.done:  # the last screen plays to the end
                        while not screen.done():  # no third match
                            pipe.send_text("n\r")
                            await asyncio.wait({screen}, timeout=0.2)
                        report = await screen
                        break
                    screen.cancel(PAUSE)  # SIGHUP, SIGTERM
                    with pytest.raises(asyncio.CancelledError):
                        await screen
                assert state.exists(), f"stopped in match {len(stopped) + 1}: its state is on disk"
                restored = restore(saved := load_saved(state), bob.me)
                session = restored.session
                assert restored.match.game is not None
                stopped.append((restored.match.session_id, len(restored.match.game.moves)))
            await hosting
            ann.close()
            return report, await ann.finished(), stopped

    report, host_report, stopped = run(scenario())
    (match_root, match_moves), (rematch_root, rematch_moves) = stopped
    assert match_root != rematch_root and match_moves >= 2 and rematch_moves >= 2
    assert report.match.session_id == host_report.match.session_id == rematch_root
    assert report.end == host_report.end == "complete", (report.error, host_report.error)
    assert report.match.transcript == host_report.match.transcript
    for side in (report, host_report):
        verified = verify(side.record.read_text())
        assert verified.complete and verified.match.transcript == report.match.transcript
    assert not state.exists()
    assert len(list((tmp_path / "bob" / "data").rglob("matches/*.jsonl"))) == 2  # the match, the rematch
    (second, _), (_, after) = screens[1:]
    before = second.flow.match  # as the second screen was paused, in the rematch's game
    assert before.matches == after.matches == 1 and sum(before.earlier) == 2  # the match's one game
    assert (after.earlier, after.played) == (before.earlier, before.played)
    assert after.headline("You", "ann") == before.headline("You", "ann")
