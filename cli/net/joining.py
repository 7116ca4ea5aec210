"""``trumps join``: reach the host by its invite (or find it on the LAN), agree on the rules, play."""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING

from cli.i18n import N_, _
from cli.net.continuing import back, lan_saved_match, saved_match, say_continuing
from cli.net.progress import Progress
from cli.net.running import Stage, fail, read_line, run_to_end, setup, stopped
from cli.net.words import describe, yes_words
from p2p.text import Text

if TYPE_CHECKING:
    from cli.net.running import Play
    from p2p.duel import Report
    from p2p.handshake import Terms
    from p2p.invite import Invite
    from p2p.record import Verified
    from p2p.saved import SavedMatch

_BROWSE_SECONDS = 1.5


def _choose_host(args: argparse.Namespace, progress: Progress) -> Invite:
    """The (secretless) invite of a game announced on the local network: the one chosen from the
    list (bots and ``--yes`` take the first heard)."""
    import asyncio

    from p2p.discovery import DiscoveryError, browse

    progress.say(Text(N_("Looking for games on your network…")))
    found = asyncio.run(browse(_BROWSE_SECONDS))
    if not found:
        raise DiscoveryError(
            Text(N_("no game announces itself on your network; ask your friend for the invite line"))
        )
    for number, host in enumerate(found, 1):
        template = N_("  {number}. {name}: {terms} ({address} port {port})")
        terms, where = describe(host.terms), host.addresses[0]
        progress.say(
            Text(template, number=number, name=host.name, terms=terms, address=where, port=host.port)
        )
    if args.bot or args.yes:
        return found[0].invite()
    try:
        answer = progress.ask(Text(N_("Join which one? [1-{count}] "), count=len(found))).strip()
    except EOFError:  # no one at the keyboard
        answer = ""
    if not re.fullmatch("[0-9]{1,3}", answer) or not 1 <= int(answer) <= len(found):
        raise DiscoveryError(Text(N_("{answer!r} is not one of the games listed"), answer=answer))
    return found[int(answer) - 1].invite()


def run_join(args: argparse.Namespace, play: Play | None = None) -> int:
    """``trumps join INVITE``: connect, agree on the rules, play the match (with ``play`` unless ``--bot``)."""
    import time

    from p2p.connect import Redial, join
    from p2p.errors import P2PError
    from p2p.handshake import LAN_SECRET
    from p2p.identity import KnownPeers
    from p2p.invite import Invite
    from p2p.saved import joined_file

    progress = Progress()
    try:
        invite = None if args.invite is None else Invite.parse(args.invite)
    except P2PError as exc:
        return fail(progress, "join", exc, args.json)
    prepared = setup(args, "join", play, progress)
    if isinstance(prepared, int):
        return prepared
    home, me, name, play_duel = prepared
    saved: SavedMatch | None
    restored: Verified | None
    try:
        # a match joined from the LAN list continues first: its host no longer announces it
        lan_match = None if invite is not None else lan_saved_match(home, bool(args.bot), progress)
        if lan_match is not None:
            saved, restored = lan_match
            assert saved.invite is not None
            invite = saved.invite
        else:
            invite = invite or _choose_host(args, progress)
            saved, restored = saved_match(joined_file(home.unfinished, invite), bool(args.bot), progress)
    except P2PError as exc:
        return fail(progress, "join", exc, args.json)
    except KeyboardInterrupt as exc:  # at a question, or while browsing
        return stopped(progress, "join", exc, args.json)
    if saved is None:  # the invite's host waits for the saved match: joining anew would be refused
        return fail(
            progress, "join", InterruptedError(Text(N_("the unfinished match was not continued"))), args.json
        )
    if invite.secret == LAN_SECRET:
        saved.invite = invite  # no invite line to give again: a restart redials this entry

    yes = yes_words()
    stage = Stage()

    async def decide(terms: Terms, host_name: str) -> bool:
        progress.say(Text(N_("{name} proposes {terms}."), name=host_name, terms=describe(terms)))
        if args.yes or args.bot:
            return True
        answer = await read_line(_("Accept these rules? [y/N] "), progress)
        return answer.strip().lower() in yes

    def asked(code: str) -> None:
        template = N_(
            "Waiting for the host to let you in; compare the verification code {code} with the host's screen"
        )
        progress.say(Text(template, code=code))

    async def main() -> Report:
        where = ", ".join(f"{host} port {port}" for host, port in invite.addresses)
        progress.say(Text(N_("Connecting to {addresses}…"), addresses=where))
        start = time.monotonic()
        if restored is not None:  # the same host and terms, redialed until it answers
            say_continuing(restored, progress)
            session = restored.session
            redial = Redial(invite, me, session.names[session.seat], KnownPeers(home.peers_file), session)
            channel = await back(redial, restored, args.timeout)
            return await play_duel(channel, session, me, home, redial, saved, restored)
        channel, session = await join(invite, me, name, KnownPeers(home.peers_file), decide, asked=asked)
        handshaken = time.monotonic()
        stage.playing = True
        progress.flush()  # before a full screen takes the terminal
        redial = Redial(invite, me, name, KnownPeers(home.peers_file), session)
        report = await play_duel(channel, session, me, home, redial, saved, None)
        report.timing["handshake_s"] = round(handshaken - start, 4)
        report.timing["match_s"] = round(time.monotonic() - handshaken, 3)
        return report

    return run_to_end("join", main(), args.json, stage, progress, saved, args.trump)
