"""``trumps join``: reach the host by its invite (or find it on the LAN), agree on the rules, play."""

from __future__ import annotations

import argparse
import re
import sys
from typing import TYPE_CHECKING

from cli.i18n import N_, _
from cli.net.arguments import DEFAULT_PORT, stated_limit_ms
from cli.net.continuing import back, closed_late, lan_saved_match, saved_match, say_continuing
from cli.net.progress import Progress
from cli.net.running import Stage, fail, read_line, run_to_end, setup, stopped
from cli.net.words import describe, yes_words
from p2p.text import Text, ntext

if TYPE_CHECKING:
    from cli.net.running import Play
    from p2p.duel import Report
    from p2p.errors import P2PError
    from p2p.handshake import Terms
    from p2p.invite import Invite
    from p2p.record import Verified
    from p2p.saved import SavedMatch

_BROWSE_SECONDS = 1.5


def _choose_host(args: argparse.Namespace, progress: Progress) -> Invite:
    """The (secretless) invite of a game announced on the local network: the one chosen from the
    list (bots and ``--yes`` take the first heard)."""
    import asyncio

    from cli.home import Home
    from p2p.crypto import fingerprint
    from p2p.discovery import DiscoveryError, browse
    from p2p.identity import KnownPeers

    progress.say(Text(N_("Looking for games on your network…")))
    peers = KnownPeers(Home.default().peers_file).load()
    browsed = asyncio.run(
        browse(
            _BROWSE_SECONDS, {name: fingerprint(bytes.fromhex(info["key"])) for name, info in peers.items()}
        )
    )
    for impostor in browsed.impostors:
        template = N_(
            "(A game announced as {name}'s comes with another key than the {name} you have played: "
            "left out. Someone may be pretending to be {name}.)"
        )
        progress.say(Text(template, name=impostor))
    found = browsed.found
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
    if browsed.more:
        progress.say(
            ntext(
                "  (and {count} more game announced: so many may be a flood; ask your friend for the invite line)",
                "  (and {count} more games announced: so many may be a flood; ask your friend for the invite line)",
                browsed.more,
            )
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


async def _why_unreached(invite: Invite, error: P2PError) -> P2PError:
    """``error`` (no address of ``invite`` answered), and, when the invite holds only addresses of
    the host's own network and this machine is on none of them (both friends behind routers, the
    host's opening no port), why, and who could host instead: this machine's router is asked."""
    from p2p.addresses import beyond_reach, interface_addresses
    from p2p.errors import ConnectionClosed
    from p2p.portmap import Reach, default_mappers, probe

    if not beyond_reach((host for host, _ in invite.addresses), interface_addresses()):
        return error
    ipv4, ipv6 = default_mappers(None, True, True)
    ours = await probe(DEFAULT_PORT, ipv4, ipv6)
    if ours.reach is Reach.ANYWHERE and ours.mapped is not None:
        template = N_(
            "your router opens ports ({method}): host the game yourself (trumps host) and send your "
            "friend the invite"
        )
        who = Text(template, method=ours.mapped.method)
    else:
        who = Text(
            N_(
                "your router opens no port either: one of you must forward the port on the router by "
                "hand (trumps host --check says how things stand), or play on the same network"
            )
        )
    template = N_(
        "{error} — the invite lists only addresses of the host's own network ({addresses}), which "
        "cannot be reached from here: the host's router opened no port. So {who}."
    )
    where = ", ".join(host for host, _ in invite.addresses)
    return ConnectionClosed(Text(template, error=error, addresses=where, who=who))


def dialed_words(invite: Invite) -> str:
    """The addresses of ``invite``, as ``Connecting to …`` names them, in the language in use."""
    return ", ".join(_("{host} port {port}").format(host=host, port=port) for host, port in invite.addresses)


def gave_up_words() -> Text:
    """Why the host was gone once its rules were answered: it waits for the answer only so long."""
    from p2p.handshake import DECISION_TIMEOUT

    return ntext(
        "the host stopped waiting for your answer to its rules after {count} minute: join again to "
        "be asked anew",
        "the host stopped waiting for your answer to its rules after {count} minutes: join again "
        "to be asked anew",
        round(DECISION_TIMEOUT / 60),
    )


def _invite_text(given: str | None, progress: Progress) -> str | None:
    """The invite's text: as given, or for ``-`` read from standard input (asked for on a
    terminal), so that it is in no process list (``ps`` shows every user a program's arguments
    for as long as it runs) nor in the shell's history."""
    if given != "-":
        return given
    if sys.stdin.isatty():  # on stdout, where the answer is echoed (input() may put it on stderr)
        return progress.ask(_("Paste the invite: "))
    return sys.stdin.readline()


def run_join(args: argparse.Namespace, play: Play | None = None) -> int:
    """``trumps join INVITE``: connect, agree on the rules, play the match (with ``play`` unless ``--bot``)."""
    import time

    from p2p.connect import Redial, join
    from p2p.errors import ConnectionClosed, P2PError, PeerBusy, PeerTimeout
    from p2p.handshake import DECISION_TIMEOUT, HANDSHAKE_TIMEOUT, LAN_SECRET
    from p2p.identity import KnownPeers
    from p2p.invite import Invite
    from p2p.saved import joined_file

    progress = Progress()
    try:
        text = _invite_text(args.invite, progress)
        invite = None if text is None else Invite.parse(text)
    except P2PError as exc:
        return fail(progress, "join", exc, args.json)
    except KeyboardInterrupt as exc:  # at the question for the invite
        return stopped(progress, "join", exc, args.json)
    except EOFError:  # Ctrl-D there
        return fail(progress, "join", InterruptedError(Text(N_("stopped before the match began"))), args.json)
    prepared = setup(args, "join", play, progress)
    if isinstance(prepared, int):
        return prepared
    home, me, name, play_duel = prepared
    saved: SavedMatch | None
    restored: Verified | None
    try:
        # a match joined from the LAN list continues first: its host no longer announces it
        lan_match = None if invite is not None else lan_saved_match(home, me, bool(args.bot), progress)
        if lan_match is not None:
            saved, restored = lan_match
            assert saved.invite is not None
            invite = saved.invite
        else:
            invite = invite or _choose_host(args, progress)
            state = joined_file(home.unfinished, invite)
            saved, restored = saved_match(state, me, invite, bool(args.bot), progress)
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
    pondered = [0.0]  # seconds the rules question stood open

    async def decide(terms: Terms, host_name: str) -> bool:
        progress.say(Text(N_("{name} proposes {terms}."), name=host_name, terms=describe(terms)))
        if args.yes or args.bot:
            return True
        asked_at = time.monotonic()
        answer = await read_line(_("Accept these rules? [y/N] "), progress)
        pondered[0] = time.monotonic() - asked_at
        return answer.strip().lower() in yes

    def asked(code: str) -> None:
        template = N_(
            "Waiting for the host to let you in; compare the verification code {code} with the host's screen"
        )
        progress.say(Text(template, code=code))

    async def main() -> Report:
        progress.say(Text(N_("Connecting to {addresses}…"), addresses=dialed_words(invite)))
        start = time.monotonic()
        if restored is not None:  # the same host and terms, redialed until it answers
            say_continuing(restored, progress)
            session = restored.session
            redial = Redial(
                invite,
                me,
                session.names[session.seat],
                KnownPeers(home.peers_file),
                session,
                report=progress.say,
            )
            try:
                channel = await back(redial, restored)
            except PeerBusy:  # the host's sealed word: our match is over
                closed_late(saved, restored, progress, over=True)
                raise
            except ConnectionClosed:  # said as it was: the host may never have left
                if redial.trouble is None:
                    raise
                template = N_(
                    "{peer} could not be reached within {seconds:g} s ({trouble}); the match stays "
                    "saved for another try"
                )
                peer = session.names[1 - session.seat]
                raise ConnectionClosed(
                    Text(template, peer=peer, seconds=session.forfeit_limit, trouble=redial.trouble)
                ) from None
            return await play_duel(channel, session, me, home, redial, saved, restored)
        try:
            channel, session = await join(
                invite, me, name, KnownPeers(home.peers_file), decide, asked=asked, limit_ms=stated_limit_ms(args)
            )
        except (ConnectionClosed, PeerTimeout) as exc:
            if pondered[0] >= DECISION_TIMEOUT - HANDSHAKE_TIMEOUT:  # the drop is the host's time-out
                raise ConnectionClosed(gave_up_words()) from None
            raise await _why_unreached(invite, exc) from None
        handshaken = time.monotonic()
        stage.playing = True
        progress.flush()  # before a full screen takes the terminal
        known = KnownPeers(home.peers_file)
        redial = Redial(invite, me, name, known, session, report=progress.say, via=channel.peer_host)
        report = await play_duel(channel, session, me, home, redial, saved, None)
        report.timing["handshake_s"] = round(handshaken - start, 4)
        report.timing["match_s"] = round(time.monotonic() - handshaken, 3)
        return report

    return run_to_end("join", main(), args.json, stage, progress, saved, args.trump)
