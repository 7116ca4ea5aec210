"""An unfinished match found again: asked about, read back, and its peer waited for."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from cli.i18n import N_
from cli.net.words import yes_words
from p2p.text import Text

if TYPE_CHECKING:
    from pathlib import Path

    from cli.home import Home
    from cli.net.progress import Progress
    from p2p.channel import Channel
    from p2p.duel_line import Reconnector
    from p2p.identity import Identity
    from p2p.invite import Invite
    from p2p.record import Verified
    from p2p.saved import SavedMatch


def saved_match(
    path: Path, me: Identity, invite: Invite | None, bot: bool, progress: Progress
) -> tuple[SavedMatch | None, Verified | None]:
    """What makes a duel restart-safe (kept in ``path``, held by this program while it plays),
    and the unfinished match found there, read back and checked against ``me`` and the host of
    ``invite`` (:class:`~p2p.saved.SavedMatchError` if it cannot be, or if another program holds
    the file). One left longer ago than its match's forfeit limit is closed, lost by forfeit, and
    said so (:func:`closed_late`). A person is asked first whether to continue it: on no, the
    match stays saved, and this duel keeps none (``None, None``: it cannot be continued after a
    restart while the other one waits)."""
    from p2p.saved import SavedMatch, SavedMatchError, load_saved, restore

    saved = load_saved(path) if path.exists() else SavedMatch(path)
    if not saved.hold():
        template = N_(
            "another trumps program is playing the match kept in {path}: only one may at a time "
            "(the file is left as it is)"
        )
        raise SavedMatchError(Text(template, path=path))
    if saved.record is None:  # no match kept there: this duel keeps its own
        return saved, None
    restored = restore(saved, me, invite)
    if closed_late(saved, restored, progress):
        return saved, None
    if bot or _continue_asked(restored, progress, path):
        return saved, restored
    saved.release()
    progress.say(Text(_KEPT, path=path))
    return None, None


_KEPT = N_("The unfinished match stays saved in {path}; delete that file to drop it.")


class Stopped(KeyboardInterrupt):
    """Ctrl-C at a question about an unfinished match: nothing began, and the match stays saved
    in ``where`` (a file, or the folder of several); the message says so."""

    def __init__(self, where: Path) -> None:
        super().__init__(Text(N_("stopped; the unfinished match stays saved in {path}"), path=where))


def _continue_asked(restored: Verified, progress: Progress, path: Path) -> bool:
    """The person's answer, on the terminal before the full screen takes it: continue the
    unfinished match ``restored``, saved in ``path``? (Enter: yes; the end of input: no; Ctrl-C:
    :class:`Stopped`.)"""
    question = N_("Continue your unfinished match against {peer} (game {number}, move {moves})? [Y/n] ")
    try:
        answer = progress.ask(Text(question, **_stopped_at(restored)))
    except EOFError:
        return False
    except KeyboardInterrupt:
        raise Stopped(path) from None
    return not answer.strip() or answer.strip().lower() in yes_words()


def _stopped_at(restored: Verified) -> dict[str, object]:
    """Where the unfinished match ``restored`` stopped, as the questions name it: the ``peer``,
    the game's ``number`` and the number of the move to come (``moves``)."""
    session, match = restored.session, restored.match
    moves = 0 if match.game is None else len(match.game.moves)
    return {"peer": session.names[1 - session.seat], "number": match.number, "moves": moves + 1}


def lan_saved_match(
    home: Home, me: Identity, bot: bool, progress: Progress
) -> tuple[SavedMatch, Verified] | None:
    """The unfinished match joined from the LAN list that ``trumps join`` without an invite
    continues (its host no longer announces it), or ``None``: there is none, or the person
    chose none, and the LAN list is browsed. One that cannot be continued is said in a line and
    passed over, and so is one another program plays, and one left too long is closed
    (:func:`closed_late`); with several, the person chooses (a bot
    takes the newest)."""
    from p2p.saved import SavedMatchError, lan_joined, restore

    ready = []
    for saved in lan_joined(home.unfinished):
        if not saved.hold():
            progress.say(Text(N_("another trumps program is playing the match kept in {path}"), path=saved.path))
            continue
        try:
            restored = restore(saved, me)
        except SavedMatchError as exc:
            progress.say(exc)
            continue
        if closed_late(saved, restored, progress):
            saved.release()
        else:
            ready.append((saved, restored))
    chosen = _chosen(ready, home, bot, progress)
    for index, (saved, _) in enumerate(ready):
        if index != chosen:
            saved.release()  # another program may continue it
    return None if chosen is None else ready[chosen]


def _chosen(ready: list[tuple[SavedMatch, Verified]], home: Home, bot: bool, progress: Progress) -> int | None:
    """Which of the ``ready`` LAN matches to continue (a bot: the newest), or ``None``."""
    if not ready or bot:
        return 0 if ready else None
    if len(ready) == 1:
        if _continue_asked(ready[0][1], progress, ready[0][0].path):
            return 0
        progress.say(Text(_KEPT, path=ready[0][0].path))
        return None
    try:
        chosen = _continue_chosen(ready, progress)
    except KeyboardInterrupt:
        raise Stopped(home.unfinished) from None
    if chosen is None:
        template = N_("The unfinished matches stay saved in {folder}; delete a file there to drop its match.")
        progress.say(Text(template, folder=home.unfinished))
    return chosen


def _continue_chosen(matches: list[tuple[SavedMatch, Verified]], progress: Progress) -> int | None:
    """Which of the unfinished ``matches`` the person continues, asked on the terminal (Enter:
    the first, the newest); ``None`` for any other answer, and at the end of input."""
    progress.say(Text(N_("Unfinished matches you joined on your network:")))
    for number, (saved, restored) in enumerate(matches, 1):
        assert saved.invite is not None
        template = N_("  {choice}. against {peer} at {address} port {port} (game {number}, move {moves})")
        address, port = saved.invite.addresses[0]
        progress.say(Text(template, choice=number, address=address, port=port, **_stopped_at(restored)))
    question = N_("Continue which one? [1-{count}; Enter: 1; n: none, look for games on your network] ")
    try:
        answer = progress.ask(Text(question, count=len(matches))).strip()
    except EOFError:
        return None
    if not answer:
        return 0
    return (
        int(answer) - 1 if re.fullmatch("[0-9]{1,3}", answer) and 1 <= int(answer) <= len(matches) else None
    )


def closed_late(saved: SavedMatch, restored: Verified, progress: Progress, over: bool = False) -> bool:
    """Close the unfinished match ``restored`` if we come back to it too late: its peer was last
    heard longer ago than the match's forfeit limit, or the host answered our return that it is ``over``
    (docs/protocol.md, "Coming back after the limit"); say how it ended; whether it was closed."""
    import time

    from p2p.late_return import seconds_since_heard
    from p2p.match_end import Standing, late_return_end

    assert saved.record is not None
    session, match = restored.session, restored.match
    away = seconds_since_heard(saved.record, time.time())
    note = late_return_end(away, session.forfeit_limit, over, Standing.of(match), session.seat)
    if note is None:
        return False
    words = {"peer": session.names[1 - session.seat], "number": match.number, "record": saved.record}
    saved.close(restored, note)
    if note["end"] == "forfeit" and "winner" in note:
        template = (
            N_("{peer} says the match is over: game {number} was claimed by forfeit, so it counts as lost.")
            if over
            else N_(
                "You were away from your match against {peer} for longer than the limit: {peer} may "
                "have claimed game {number} by forfeit, so it counts as lost and the match is closed."
            )
        )
    elif "winner" in note:
        template = N_("{peer} ended the match before the limit, after seeing the deal: game {number} is yours.")
    else:
        template = N_("Your match against {peer} is over.")
    progress.say(Text(template, **words))
    progress.say(Text(N_("Record: {record}  (check it with: trumps verify {record})"), record=words["record"]))
    return True


async def back(way: Reconnector, restored: Verified) -> Channel:
    """The peer of the continued match ``restored``, back on a fresh connection within the
    forfeit limit; past it, a :class:`~p2p.errors.ConnectionClosed` (the match stays saved).
    The host's sealed ``busy`` (our match is over) is a :class:`~p2p.errors.PeerBusy`."""
    import asyncio

    from p2p.errors import ConnectionClosed

    limit = restored.session.forfeit_limit
    try:
        async with asyncio.timeout(limit):
            return (await way.reconnect())[0]
    except TimeoutError:
        template = N_("{peer} did not come back within {seconds:g} s; the match stays saved for another try")
        peer = restored.session.names[1 - restored.session.seat]
        raise ConnectionClosed(Text(template, peer=peer, seconds=limit)) from None


def say_continuing(restored: Verified, progress: Progress) -> None:
    """Say which unfinished match goes on, and from where."""
    session, match = restored.session, restored.match
    moves = 0 if match.game is None else len(match.game.moves)
    template = N_("Continuing the unfinished match with {peer} (game {number}, after move {moves})…")
    progress.say(Text(template, peer=session.names[1 - session.seat], number=match.number, moves=moves))
