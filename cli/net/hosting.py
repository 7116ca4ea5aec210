"""``trumps host``: listen, print the invite, and play the match with whoever joins."""

from __future__ import annotations

import argparse
import contextlib
from typing import TYPE_CHECKING

from cli.i18n import N_, translated
from cli.net.arguments import stated_limit_ms
from cli.net.continuing import back, saved_match, say_continuing
from cli.net.progress import Progress
from cli.net.running import Stage, fail, read_line, run_to_end, setup, stopped
from cli.net.words import describe, yes_words
from cli.printable import printable
from p2p.text import Text

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from cli.net.running import Play
    from p2p.channel import Channel
    from p2p.connect import Listener
    from p2p.duel import Report
    from p2p.handshake import Session
    from p2p.portmap import MapResult, PortMapping


def run_host(args: argparse.Namespace, play: Play | None = None) -> int:
    """``trumps host``: listen, print the invite, play the match (with ``play`` unless ``--bot``)."""
    import time

    from cli.app.duel_summary import host_words
    from engine import Rules
    from p2p.addresses import host_addresses, is_loopback, socket_families
    from p2p.connect import Listener, listening_socket
    from p2p.discovery import Announcement
    from p2p.errors import P2PError
    from p2p.handshake import Terms
    from p2p.identity import KnownPeers
    from p2p.portmap import PortMapping, default_mappers
    from p2p.saved import SavedMatchError, hosted_file

    progress = Progress()
    more_descriptors()
    prepared = setup(args, "host", play, progress)
    if isinstance(prepared, int):
        return prepared
    home, me, name, play_duel = prepared
    rules = Rules(pickup=args.pickup or "forced", sixes=not args.no_sixes)
    terms = Terms(rules, args.games or 1, hints=args.hints, limit_ms=stated_limit_ms(args))
    try:
        saved, restored = saved_match(hosted_file(home.unfinished), me, None, bool(args.bot), progress)
    except SavedMatchError as exc:
        if args.bot:
            return fail(progress, "host", exc, args.json)
        progress.say(exc)  # a person hosts a new match; the unreadable one is left for a look
        saved, restored = None, None
    except KeyboardInterrupt as exc:  # at the question whether to continue
        return stopped(progress, "host", exc, args.json)
    if restored is not None:  # the host continues its unfinished match, under its invite
        assert saved is not None and saved.invite is not None
        terms, name = restored.session.terms, restored.session.names[restored.session.seat]
        # the invite's last address is this machine's own, on the port it listened on; its first,
        # the router's public one when the router opened a port (maybe another: a conflict)
        args.port, outside = saved.invite.addresses[-1][1], saved.invite.addresses[0][1]
    else:
        outside = None
    try:
        sock = listening_socket(args.bind, args.port)
    except OSError as exc:
        where = args.bind or Text(N_("every address"))
        error = Text(
            N_("cannot listen on {where} port {port}: {error}"),
            where=where,
            port=args.port,
            error=exc.strerror or exc,
        )
        return fail(progress, "host", OSError(error), args.json)
    port = sock.getsockname()[1]
    stage = Stage()
    families = socket_families(sock)
    local = host_addresses(args.bind, **families)
    # a bot takes only invites: listed on the LAN, it would turn away every joiner who picked it
    announce = not args.no_announce and not is_loopback(args.bind) and args.bot is None
    # a continued match awaits its joiner alone
    approve = _asker(progress) if announce and restored is None else None

    async def main() -> Report:
        ipv4, ipv6 = ([], []) if args.no_map else default_mappers(args.bind, **families)
        listener = Listener(
            sock, me, name, terms, KnownPeers(home.peers_file), lambda text: progress.say(host_words(text)),
            approve=approve,
        )
        if restored is not None:  # only that joiner gets in, under the saved invite
            assert saved is not None
            listener.continue_match(saved, restored.session)
        async with (
            PortMapping(port, ipv4, ipv6, external_port=outside or port, report=progress.say) as mapping,
            listener,
        ):  # the router's lease, deleted on exit
            reachable = [(args.advertise, port)] if args.advertise else mapping.result.reachable(local, port)
            invite = listener.invite(reachable)
            if restored is not None:
                assert saved is not None and saved.invite is not None
                invite = saved.invite
            elif saved is not None:
                saved.invite = invite
            progress.show(Text(N_("Send this to your friend:  trumps join {invite}"), invite=invite))
            if restored is not None:
                say_continuing(restored, progress)
            progress.say(
                Text(
                    N_("Hosting {terms} on port {port}; waiting for your friend to join…"),
                    terms=describe(terms),
                    port=port,
                )
            )
            _say_reach(args.advertise is None, mapping.result, invite.addresses[0][0], port, progress)
            way_back = RouterMinded(listener, mapping)
            if restored is not None:
                channel, session = await back(way_back, restored), restored.session
            else:
                async with (
                    contextlib.AsyncExitStack() as announcing
                ):  # on the LAN (mDNS) until a joiner is in
                    if announce:
                        try:
                            await announcing.enter_async_context(
                                Announcement(name, me.fingerprint, terms, local, port)
                            )
                        except P2PError as exc:
                            listener.take_invites_only()  # nobody finds it
                            progress.say(exc)
                    channel, session = await listener.first()
                if saved is not None:  # on disk with the duel's first save, before any link
                    saved.lan = listener.joined_by_lan
                    saved.joiner_at(channel.peer_host)
            stage.playing = True
            start = time.monotonic()
            progress.flush()  # before a full screen takes the terminal
            report = await play_duel(channel, session, me, home, way_back, saved, restored)
            report.timing["match_s"] = round(time.monotonic() - start, 3)
            return report

    return run_to_end("host", main(), args.json, stage, progress, saved, args.trump)


def run_check(args: argparse.Namespace) -> int:
    """``trumps host --check``: ask the router to open the port (and close it again at once), and
    say who could join a game hosted here; 0 when friends anywhere could (``--json``: one line)."""
    import asyncio
    import json

    from p2p.addresses import host_addresses
    from p2p.portmap import Reach, default_mappers, probe

    async def check() -> MapResult:
        ipv4, ipv6 = default_mappers(args.bind, True, True)
        return await probe(args.port, ipv4, ipv6)

    result = asyncio.run(check())
    local = host_addresses(args.bind)
    if args.json:
        mapped = result.mapped
        print(json.dumps({
            "reach": result.reach.value,
            "mapped": None if mapped is None else {"method": mapped.method, "address": str(mapped.external_address),
                                                   "port": mapped.external_port},
            "ipv6_pinhole": result.pinhole is not None,
            "failures": [[method, str(error)] for method, error in result.failures],
            "addresses": local,
        }), flush=True)  # fmt: skip
        return 0 if result.reach is Reach.ANYWHERE else 1
    for line in reach_check(result, local, args.port):
        print(printable(translated(line)), flush=True)
    return 0 if result.reach is Reach.ANYWHERE else 1


def reach_check(result: MapResult, local: list[str], port: int) -> list[Text | str]:
    """What ``trumps host --check`` says: each way of asking the router and its answer, this
    machine's addresses, and who could join a game hosted here."""
    from p2p.portmap import Reach

    lines: list[Text | str] = [
        Text(N_("Asked your router to open TCP port {port} (and closed it again):"), port=port)
    ]
    if result.mapped is not None:
        lease = result.mapped
        template = N_("  {method}: opened port {external}; your public address is {address}")
        lines.append(
            Text(template, method=lease.method, external=lease.external_port, address=lease.external_address)
        )
    lines += [f"  {method}: {translated(error)}" for method, error in result.failures]
    if result.pinhole is not None:
        template = N_("Your router's firewall lets IPv6 connections in to port {port} ({method}).")
        lines.append(Text(template, port=result.pinhole.external_port, method=result.pinhole.method))
    lines.append(Text(N_("This machine's addresses: {addresses}"), addresses=", ".join(local)))
    reach = result.reach
    if reach is Reach.ANYWHERE:
        lines.append(Text(N_("So you can host: a friend anywhere can join with your invite.")))
    elif reach is Reach.SHARED:
        assert result.mapped is not None
        template = N_(
            "But your router's public address {address} is not on the internet itself (your provider "
            "shares it): friends elsewhere cannot get through, port or not. Host for friends on your "
            "network, or let a friend whose router opens ports host."
        )
        lines.append(Text(template, address=result.mapped.external_address))
    elif reach is Reach.IPV6:
        lines.append(
            Text(
                N_(
                    "So friends with IPv6 can join you from anywhere; over IPv4, only friends on your network."
                )
            )
        )
    else:
        template = N_(
            "So only friends on your network can join you, unless you forward TCP port {port} on your "
            "router by hand. If a friend's router opens ports (trumps host --check, on that friend's "
            "machine), let that friend host."
        )
        lines.append(Text(template, port=port))
    return lines


class RouterMinded:
    """The host's way back to its joiner (its :class:`~p2p.connect.Listener`), asking the router
    again at once whenever the joiner is lost: after a router restart only a mapping, asked for
    again, lets the joiner back in (:meth:`~p2p.portmap.PortMapping.joiner_lost`). A
    :class:`~p2p.duel_line.Reconnector`; news of the mapping goes where the refusals go."""

    def __init__(self, listener: Listener, mapping: PortMapping) -> None:
        self.listener, self.mapping = listener, mapping

    async def reconnect(self) -> tuple[Channel, Session]:
        """The joiner back, the router asked again meanwhile."""
        self.mapping.joiner_lost()
        return await self.listener.reconnect()

    def watch(self, interrupt: Callable[[], None]) -> None:
        """See :meth:`~p2p.connect.Listener.watch`."""
        self.listener.watch(interrupt)

    def report_to(self, refused: Callable[[Text], None]) -> None:
        """Refusals and news of the mapping go to ``refused`` from now on."""
        self.listener.report_to(refused)
        self.mapping.report = refused

    def match_over(self) -> None:
        """See :meth:`~p2p.connect.Listener.match_over`."""
        self.listener.match_over()


MOST_DESCRIPTORS = 8192
"""The soft limit on open files a host raises itself to, at most (its hard limit if lower): far
more than the listener's bounded pools hold (docs/operations.md, "Admission"), so that a local
program's own files and a router's or the LAN's sockets never meet a limit a flood brought near."""


def more_descriptors() -> None:
    """Raise this process's soft limit on open files towards its hard limit (at most
    :data:`MOST_DESCRIPTORS`): many systems start programs with 1 024, which the host's pools, its
    record and saved match, mDNS and port mapping share."""
    try:
        import resource
    except ImportError:  # no such limit here (Windows)
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = MOST_DESCRIPTORS if hard == resource.RLIM_INFINITY else min(hard, MOST_DESCRIPTORS)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):  # refused by the system: the limit stays
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def _say_reach(asked: bool, mapped: MapResult, first: str, port: int, progress: Progress) -> None:
    """Say on stderr how a friend can reach us: what the router did, or the manual steps when
    nothing outside can reach the invite's first address (``asked``: no ``--advertise``)."""
    from p2p.addresses import is_loopback

    if mapped.mapped is not None:
        lease = mapped.mapped
        if lease.external_port == port:
            template = N_("Your router opened port {port} ({method}); the invite uses {address}.")
        else:  # the port was taken on the router (another machine here hosts too)
            template = N_(
                "Your router opened port {port} ({method}) for this machine's port {internal}, which "
                "another machine on your network has there; the invite uses {address} port {port}."
            )
        progress.say(
            Text(
                template, port=lease.external_port, method=lease.method, address=lease.external_address,
                internal=port,
            )
        )  # fmt: skip
    if mapped.pinhole is not None:
        template = N_("Your router's firewall lets IPv6 connections in to port {port} ({method}).")
        progress.say(Text(template, port=mapped.pinhole.external_port, method=mapped.pinhole.method))
    if asked and mapped.mapped is None and is_loopback(first):
        template = N_(
            "(That address works only on this machine: nobody elsewhere can join. To play across "
            "your network or the internet, leave out --bind or give one of this machine's network "
            "addresses.)"
        )
        progress.say(Text(template))
    elif asked and mapped.mapped is None and _unrouted(first):
        if mapped.failures:
            reasons = "; ".join(f"{method}: {translated(error)}" for method, error in mapped.failures)
            progress.say(Text(N_("Your router did not open the port ({reasons})."), reasons=reasons))
        template = N_(
            "(That address only works nearby. Across the internet, forward TCP port {port} on your "
            "router to this machine and run again with --advertise YOUR-PUBLIC-ADDRESS, or give an "
            "IPv6 address.)"
        )
        progress.say(Text(template, port=port))
        progress.say(Text(_OTHER_HOST))


_OTHER_HOST = N_(
    "If your friend's router opens ports (trumps host --check tells, on your friend's machine), "
    "your friend can host instead and send you the invite."
)


def _asker(progress: Progress) -> Callable[[str, str, str], Awaitable[bool]]:
    """How the host's person decides on a LAN joiner, asked on the terminal (before any full
    screen takes it); no answer (end of input) is no."""

    async def ask_person(name: str, address: str, code: str) -> bool:
        question = N_(
            "{name} wants to join from {address} (verification code {code}: {name}'s screen shows the same) "
            "— accept? [y/N]"
        )
        progress.say(Text(question, name=name, address=address, code=code))
        # a question withdrawn meanwhile (the joiner left) leaves what was typed to the next one
        return (await read_line("", progress)).strip().lower() in yes_words()

    return ask_person


def _unrouted(host: str) -> bool:
    """Whether ``host`` is an IP address that the internet does not route to (not globally
    reachable in IANA's special-purpose registries: private, shared by a carrier-grade NAT,
    link-local, loopback, documentation…); ``False`` for a name, which may be anywhere."""
    import ipaddress

    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return not address.is_global
