"""Reaching a friend across a small internet in network namespaces (tests/netlab.py): bot matches
through a port the home router opened by UPnP and by PCP (and NAT-PMP), over an IPv6 pinhole, at
5 % packet loss each way; a router that opens nothing; a host name that maps to 127.0.1.1.

Skipped, with the one reason, where the lab cannot be built (not root, no ``ip netns``, no miniupnpd)."""

from __future__ import annotations

import ast
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2p.discovery import MAX_LISTED
from p2p.invite import Invite
from tests.netlab import REPO, Lab, Program, conntrack_reason, poll, record_lines, skip_reason

PORT = 47111
BOT = ["--bot", "easy", "--json", "--timeout", "20"]

reason = skip_reason()
pytestmark = [pytest.mark.net, pytest.mark.skipif(reason is not None, reason=reason or "")]


@pytest.fixture(scope="module")
def lab() -> Iterator[Lab]:
    built = Lab().build()
    try:
        yield built
    finally:
        built.close()


def _host(lab: Lab, role: str, tmp_path: Path, *options: str) -> tuple[Program, Invite]:
    host = lab.trumps(role, tmp_path / "ann", "host", "--name", "ann", *BOT, *options)
    return host, Invite.parse(host.invite())


def _play(
    lab: Lab, host: Program, role: str, invite: Invite | None, tmp_path: Path
) -> tuple[dict[str, object], str, str]:
    """Join ``invite`` (none: the game found on the LAN) from ``role`` and play to the end; both
    summaries and records checked; the host's summary and both stderr returned."""
    chosen = [] if invite is None else [str(invite)]
    joiner = lab.trumps(role, tmp_path / "bob", "join", *chosen, "--name", "bob", *BOT)
    return _played(host, joiner)


def _played(host: Program, joiner: Program) -> tuple[dict[str, object], str, str]:
    """Both to the end of a complete match, records verified (see :func:`_play`)."""
    mine, join_err = joiner.finish(90)
    theirs, host_err = host.finish(30)
    assert mine.get("end") == theirs.get("end") == "complete", (join_err[-1500:], host_err[-1500:])
    assert mine["transcript"] == theirs["transcript"]
    for summary in (mine, theirs):  # `trumps verify` on each side's record
        verified = subprocess.run([sys.executable, "-m", "cli", "verify", str(summary["record"])],
                                  capture_output=True, text=True, timeout=60, cwd=REPO)  # fmt: skip
        assert verified.returncode == 0 and "COMPLETE" in verified.stdout.upper(), (
            verified.stdout + verified.stderr
        )
    return theirs, host_err, join_err


def test_the_lab_reaches_nothing_but_itself(lab: Lab) -> None:
    lab.check_isolated()
    assert "default" not in lab.exec("inet", "ip", "route").stdout  # the "internet" leads nowhere else


def test_the_lab_leaves_nothing_behind() -> None:
    small = Lab(homes={"c": Lab().homes["c"]}).build()
    names = list(small.namespaces)
    small.close()
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10).stdout
    assert names and not any(name in listed for name in names)


def test_a_match_through_the_port_a_upnp_router_opened_which_is_closed_after(
    lab: Lab, tmp_path: Path
) -> None:
    host, invite = _host(lab, "a1", tmp_path)
    try:
        assert invite.addresses[0] == (lab.wan("a"), PORT)
        assert f"dnat ip to {lab.lan('a1')}:{PORT}" in lab.mappings("a")
        _, err, _ = _play(lab, host, "b1", invite, tmp_path)
    finally:
        host.stop()
    assert f"Your router opened port {PORT} (UPnP); the invite uses {lab.wan('a')}." in err
    assert "forward TCP port" not in err
    assert "dnat" not in lab.mappings("a")


def test_a_match_through_the_port_a_pcp_router_opened_which_is_closed_after(lab: Lab, tmp_path: Path) -> None:
    host, invite = _host(lab, "b1", tmp_path)
    try:
        assert invite.addresses[0] == (lab.wan("b"), PORT)
        assert f"dnat ip to {lab.lan('b1')}:{PORT}" in lab.mappings("b")
        _, err, _ = _play(lab, host, "a1", invite, tmp_path)
    finally:
        host.stop()
    assert f"Your router opened port {PORT} (PCP); the invite uses {lab.wan('b')}." in err
    assert "dnat" not in lab.mappings("b")


def test_a_match_over_ipv6_through_the_pinhole_the_router_opened(lab: Lab, tmp_path: Path) -> None:
    host, invite = _host(lab, "b1", tmp_path)
    try:
        pinhole = Invite(((lab.lan("b1", 6), PORT),), invite.fingerprint, invite.secret)
        _, err, _ = _play(lab, host, "a1", pinhole, tmp_path)
    finally:
        host.stop()
    assert f"lets IPv6 connections in to port {PORT} (PCP)" in err
    assert (lab.lan("b1", 6), PORT) in invite.addresses  # the invite lists it among its addresses


def test_the_home_router_lets_no_unasked_ipv6_connection_in(lab: Lab) -> None:
    probe = (
        "import socket; s = socket.socket(socket.AF_INET6); s.settimeout(1.0)\n"
        "try: s.connect((%r, 9)); print('connected')\n"
        "except OSError as e: print(type(e).__name__)\n"
    )
    listener = subprocess.Popen(["ip", "netns", "exec", lab.ns("c1"), sys.executable, "-c",
                                 "import socket,time; s=socket.create_server(('::', 9), family=socket.AF_INET6); time.sleep(5)"])  # fmt: skip
    try:
        outside = lab.exec("a1", sys.executable, "-c", probe % lab.lan("c1", 6)).stdout.strip()
        inside = lab.exec("c2", sys.executable, "-c", probe % lab.lan("c1", 6)).stdout.strip()
    finally:
        listener.kill()
        listener.wait(5)
    assert (outside, inside) == ("TimeoutError", "connected")


def test_natpmp_opens_and_deletes_a_mapping_on_the_real_daemon(lab: Lab) -> None:
    script = (
        "import asyncio, ipaddress\n"
        "from p2p.portmap.mappers import NatPmpMapper\n"
        "async def main():\n"
        "    mapper = NatPmpMapper(ipaddress.IPv4Address({!r}), 2.0)\n"
        "    lease = await mapper.map(47112, 47112, 60)\n"
        "    print(lease.method, lease.external_address, lease.external_port, lease.lifetime, flush=True)\n"
        "    input()\n"
        "    await mapper.unmap(lease)\n"
        "asyncio.run(main())\n"
    ).format(lab.router_lan("b"))
    process = subprocess.Popen(["ip", "netns", "exec", lab.ns("b1"), sys.executable, "-c", script],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)  # fmt: skip
    try:
        assert process.stdout is not None and process.stdin is not None
        granted = process.stdout.readline().split()
        held = lab.mappings("b")
        process.stdin.write("\n")
        process.stdin.flush()
        assert process.wait(10) == 0
    finally:
        process.kill()
    assert granted == ["NAT-PMP", lab.wan("b"), "47112", "60"]
    assert f"dnat ip to {lab.lan('b1')}:47112" in held and "dnat" not in lab.mappings("b")


def test_a_router_that_opens_nothing_gets_the_manual_steps_and_the_lan_join_works(
    lab: Lab, tmp_path: Path
) -> None:
    host, invite = _host(lab, "c1", tmp_path)
    try:
        assert invite.addresses[0][0] == lab.lan("c1")
        _, err, _ = _play(lab, host, "c2", invite, tmp_path)
    finally:
        host.stop()
    assert "Your router did not open the port (PCP: nothing answers on the router at 10.3.0.1" in err
    assert f"forward TCP port {PORT} on your router" in err
    assert "your friend can host instead" in err
    assert not RAW.search(err), err  # issue 21: "Future exception was never retrieved … NoAnswer" at exit


RAW = re.compile("Traceback|Exception|never retrieved|Task was destroyed|sendto|Network is unreachable")
"""What the program itself never says: a traceback, asyncio's complaints, miniupnpc's raw C errors."""


def test_a_host_with_no_route_out_says_only_its_own_sentences(lab: Lab, tmp_path: Path) -> None:
    """Issue 21: with no default route, miniupnpc wrote "sendto: Network is unreachable" four times
    straight to the terminal (from C, to file descriptor 2)."""
    routes = lab.exec("c2", "ip", "-j", "route", "show", "default").stdout
    for version in ("-4", "-6"):
        lab.exec("c2", "ip", version, "route", "del", "default", check=False)
    try:
        host = lab.trumps("c2", tmp_path / "ann", "host", "--name", "ann", *BOT)
        host.invite()
        said = host.wait_for("your friend can host instead")  # the last of what it says at the start
        time.sleep(4.5)  # past every UPnP search miniupnpc makes
        host.process.send_signal(signal.SIGINT)
        err = "".join(said) + host.finish(30)[1]
    finally:
        lab.exec("c2", "ip", "route", "add", "default", "via", lab.router_lan("c"), check=False)
        lab.exec("c2", "ip", "-6", "route", "add", "default", "via", "2001:db8:3::1", check=False)
    assert "default" in routes and host.process.returncode == 130
    assert "Your router did not open the port (UPnP: no UPnP router answered)." in err
    assert not RAW.search(err), err


def test_a_match_at_five_percent_loss_each_way_completes(lab: Lab, tmp_path: Path) -> None:
    for role in ("a1", "b1"):
        lab.lossy(role, 0.05)
    try:
        host, invite = _host(lab, "a1", tmp_path, "--games", "2")
        try:
            summary, _, _ = _play(lab, host, "b1", invite, tmp_path)
        finally:
            host.stop()
        dropped = [lab.dropped(role) for role in ("a1", "b1")]
    finally:
        for role in ("a1", "b1"):
            lab.lossless(role)
    assert isinstance(summary["result"], list) and len(summary["result"]) == 2
    # The loss was real. Not asserted for each way: one way of a short match sends some 60-80
    # packets, none of them dropped 2-5% of the time at 5%; both ways together, a few in 100,000.
    assert sum(dropped) > 0, dropped


def test_a_host_whose_name_maps_to_127_0_1_1_invites_with_its_lan_address(lab: Lab, tmp_path: Path) -> None:
    lab.hosts_file("c1", "127.0.0.1 localhost\n127.0.1.1 box\n")
    resolve = "import socket; print(socket.gethostbyname(socket.gethostname()))"
    trap = lab.exec(
        "c1", "unshare", "--uts", "sh", "-c", f'hostname box && exec {sys.executable} -c "{resolve}"'
    )
    assert trap.stdout.strip() == "127.0.1.1"  # the Debian default is really in place
    host = lab.trumps("c1", tmp_path / "ann", "host", "--name", "ann", "--no-map", *BOT, hostname="box")
    try:
        invite = Invite.parse(host.invite())
    finally:
        host.stop()
    assert invite.addresses[0][0] == lab.lan("c1")


def _person_host(lab: Lab, role: str, tmp_path: Path, *options: str) -> Program:
    """A host whose person answers on stdin (tests/lan_host.py: a bot plays its match)."""
    host = lab.trumps(role, tmp_path / "ann", "--name", "ann", "--json", "--timeout", "20", *options,
                      entry=("-m", "tests.lan_host"), stdin=True)  # fmt: skip
    host.invite()
    return host


def _code(line: str) -> str:
    found = re.search(r"verification code ([0-9]{3} [0-9]{3})", line)
    assert found is not None, line
    return found[1]


def test_a_joiner_without_an_invite_finds_the_game_on_its_lan_and_plays_it_once_the_host_accepts(
    lab: Lab, tmp_path: Path
) -> None:
    host = _person_host(lab, "c1", tmp_path, "--no-map", "--games", "2")
    try:
        joiner = lab.trumps("c2", tmp_path / "bob", "join", "--name", "bob", *BOT)
        question = host.wait_for("wants to join")[-1]
        host.type("y\n")
        _, _, join_err = _played(host, joiner)
    finally:
        host.stop()
    assert f"bob wants to join from {lab.lan('c2')}" in question and "accept? [y/N]" in question
    assert "Looking for games on your network" in join_err
    assert (
        f"1. ann: a match of 2 games, forced pick-up, the trump sixes change hands, a draw after 1000 moves, no AI hints "
        f"({lab.lan('c1')} port {PORT})" in join_err
    )
    waiting = next(line for line in join_err.splitlines() if "Waiting for the host to let you in" in line)
    assert _code(waiting) == _code(question)  # both compare the same code


def test_a_bot_host_is_not_listed_to_lan_joiners_it_would_turn_away(lab: Lab, tmp_path: Path) -> None:
    """Issue 21: a bot takes only invites, yet it was listed, and a joiner who picked it (a bot
    joiner takes the first heard) was told it "did not prove the invite's secret"."""
    host, invite = _host(lab, "c1", tmp_path, "--no-map")
    try:
        joiner = lab.trumps("c2", tmp_path / "bob", "join", "--name", "bob", *BOT)
        summary, err = joiner.finish(60)
        _play(lab, host, "c2", invite, tmp_path)  # it still takes its invite
    finally:
        host.stop()
    assert joiner.process.returncode == 1 and summary["end"] == "refused"
    assert "no game announces itself on your network" in err and "1. ann:" not in err
    assert "secret" not in err


def test_ctrl_c_at_the_hosts_question_ends_both_cleanly(lab: Lab, tmp_path: Path) -> None:
    host = _person_host(lab, "c1", tmp_path, "--no-map")
    try:
        joiner = lab.trumps("c2", tmp_path / "bob", "join", "--name", "bob", *BOT)
        host.wait_for("wants to join")
        host.process.send_signal(signal.SIGINT)
        summary, err = host.finish(30)
        theirs, join_err = joiner.finish(60)
    finally:
        host.stop()
    assert host.process.returncode == 130 and summary["end"] == "refused" and "stopped" in err  # Ctrl-C
    assert joiner.process.returncode == 1 and theirs["end"] == "refused"
    assert "Traceback" not in err + join_err, err + "\n----\n" + join_err


def test_discovery_stays_inside_the_home(lab: Lab, tmp_path: Path) -> None:
    host, _ = _host(lab, "c1", tmp_path, "--no-map")
    try:
        joiner = lab.trumps("a1", tmp_path / "bob", "join", "--name", "bob", *BOT)
        summary, err = joiner.finish(30)
    finally:
        host.stop()
    assert joiner.process.returncode == 1 and summary["end"] == "refused"
    assert "no game announces itself on your network" in err


def test_after_a_crash_the_mapping_is_left_to_lapse_by_itself(lab: Lab, tmp_path: Path) -> None:
    host, invite = _host(lab, "a1", tmp_path, "--no-announce")
    host.process.kill()  # no chance to delete anything
    host.process.wait(10)
    host.stop()
    ask = (
        "import miniupnpc; u = miniupnpc.UPnP(); u.discover(); u.selectigd()\n"
        f"print(u.getspecificportmapping({PORT}, 'TCP'))\n"
        f"u.deleteportmapping({PORT}, 'TCP')\n"  # tidy up for the tests after this one
    )
    left = lab.exec("a1", sys.executable, "-c", ask).stdout
    client, port, description, enabled, lease = ast.literal_eval(left)  # the tuple miniupnpc gives
    assert (client, port, enabled) == (lab.lan("a1"), PORT, True) and description == "Your trumps"
    assert invite.addresses[0][0] == lab.wan("a") and 0 < lease <= 1200  # it lapses within 20 minutes


def _mid_match(lab: Lab, tmp_path: Path, *options: str) -> tuple[Program, Program, str, tuple[str, ...]]:
    """Ann hosts a two-game match in home a (its router opens the port by UPnP), bob joins from
    home b by the invite as printed, and they are six moves in: the host, the joiner, the
    invite, and the host's command (to run it again)."""
    command = ("host", "--name", "ann", "--games", "2", *BOT, *options)
    host = lab.trumps("a1", tmp_path / "ann", *command)
    invite = host.invite()
    joiner = lab.trumps("b1", tmp_path / "bob", "join", invite, "--name", "bob", *BOT)
    poll(lambda: record_lines(tmp_path / "ann" / "data" / "trumps" / "matches", "move") >= 6)
    return host, joiner, invite, command


def test_a_host_killed_and_rerun_mid_match_has_its_internet_joiner_back_at_once(
    lab: Lab, tmp_path: Path
) -> None:
    """Issue 21: the invite lists the router's public address and the host's LAN address, a black
    hole from bob's home; bob's redials waited that address out, 26 s, past his 20 s limit. Each
    address now has its own schedule, and the public one, which led to ann, is dialed every second."""
    host, joiner, invite, command = _mid_match(lab, tmp_path)
    records = tmp_path / "ann" / "data" / "trumps" / "matches"
    try:
        assert f"{lab.lan('a1')}:{PORT}" in invite.split("/")[0]  # the LAN address is in it
        host.process.kill()
        host.process.wait(10)
        links = record_lines(records, "link")
        time.sleep(6)  # ann reruns a few seconds later: bob has been redialing meanwhile
        again = lab.trumps("a1", tmp_path / "ann", *command)
        poll(lambda: record_lines(records, "link") > links, 60, "bob did not come back")
        theirs, host_err = again.finish(120)
        mine, join_err = joiner.finish(60)
    finally:
        host.stop()
        joiner.stop()
    assert mine.get("end") == theirs.get("end") == "complete", (join_err[-1500:], host_err[-1500:])
    assert mine["reconnects"] == 1  # within bob's 20 s limit, 6 s of it gone before the rerun
    # (how soon after the rerun is a figure, not a test: benchmarks/netlab.py measures it)
    assert "cannot reach ann yet: 11.0.0.1:47111 refuses connections" in join_err, join_err


@pytest.mark.skipif(conntrack_reason() is not None, reason=conntrack_reason() or "")
def test_a_router_restart_mid_match_is_survived_and_said_as_it_happened(lab: Lab, tmp_path: Path) -> None:
    """Issue 21: a router reboot forgot the mapping; the host renewed it only at half its lease
    (600 s), so bob, needing a new connection, never got in, and lost the game. Now the host looks
    at its mapping every 10 s (and asks again the moment bob is lost), and says what it found."""
    host, joiner, _, _ = _mid_match(lab, tmp_path, "--timeout", "40")  # found within 10 s; room for load
    try:
        lab.restart_router("a")  # miniupnpd restarted, its chains and the NAT's connections flushed
        assert "dnat" not in lab.mappings("a")
        theirs, host_err = host.finish(120)
        mine, join_err = joiner.finish(60)
    finally:
        host.stop()
        joiner.stop()
    assert mine.get("end") == theirs.get("end") == "complete", (join_err[-1500:], host_err[-1500:])
    assert isinstance(mine["reconnects"], int) and mine["reconnects"] >= 1  # bob needed a new connection
    assert f"Your router had lost port {PORT} (did it restart?): it is open again (UPnP)." in host_err
    assert "did not come back" not in join_err and not RAW.search(host_err + join_err)


def test_a_second_host_on_the_lan_gets_another_port_on_the_router_and_its_invite_says_which(
    lab: Lab, tmp_path: Path
) -> None:
    """Issue 21: a second host behind the same router, on the same port, got ConflictInMappingEntry
    and no mapping at all."""
    first, _ = _host(lab, "a1", tmp_path / "first", "--no-announce")
    try:
        second, invite = _host(lab, "a2", tmp_path, "--no-announce")
        try:
            assert (
                invite.addresses[0] == (lab.wan("a"), PORT + 1) and (lab.lan("a2"), PORT) in invite.addresses
            )
            _, err, _ = _play(lab, second, "b1", invite, tmp_path)
        finally:
            second.stop()
    finally:
        first.stop()
    assert (
        f"Your router opened port {PORT + 1} (UPnP) for this machine's port {PORT}, which another machine "
        f"on your network has there; the invite uses {lab.wan('a')} port {PORT + 1}."
    ) in err


def test_behind_two_routers_the_joiner_is_told_why_and_who_could_host(lab: Lab, tmp_path: Path) -> None:
    """Issue 21: ann's router (home c) opens no port, so her invite holds only her LAN address;
    bob (home b) was told "cannot connect … can this machine reach that address and port?".
    Now he is told why, and, his own router opening ports, that he could host instead (and
    `trumps host --check` says so beforehand: the test after this one)."""
    host, invite = _host(lab, "c1", tmp_path, "--no-announce")
    try:
        joiner = lab.trumps("b1", tmp_path / "bob", "join", str(invite), "--name", "bob", *BOT)
        summary, err = joiner.finish(60)
    finally:
        host.stop()
    assert joiner.process.returncode == 1 and summary["end"] == "refused"
    assert (
        f"the invite lists only addresses of the host's own network ({lab.lan('c1')}, {lab.lan('c1', 6)}), "
        "which cannot be reached from here: the host's router opened no port. So your router opens "
        "ports (PCP): host the game yourself (trumps host) and send your friend the invite."
    ) in err, err


def test_the_check_says_before_anyone_tries_whose_router_opens_ports(lab: Lab) -> None:
    """`trumps host --check` (issue 21): each router asked to open the port and to close it again;
    exit status 0 where friends anywhere could join."""
    said = {}
    for role in ("a1", "b1", "c1"):
        checked = subprocess.run(
            ["ip", "netns", "exec", lab.ns(role), sys.executable, "-m", "cli", "host", "--check"],
            capture_output=True, text=True, timeout=60, cwd=REPO,
            env=os.environ | {"PYTHONPATH": str(REPO), "LANG": "C.UTF-8"},
        )  # fmt: skip
        said[role] = (checked.returncode, checked.stdout, checked.stderr)
    (a_status, a_out, a_err), (b_status, b_out, _), (c_status, c_out, _) = said["a1"], said["b1"], said["c1"]
    assert a_status == 0 and f"UPnP: opened port {PORT}; your public address is {lab.wan('a')}" in a_out
    assert "So you can host: a friend anywhere can join with your invite." in a_out
    assert b_status == 0 and f"PCP: opened port {PORT}; your public address is {lab.wan('b')}" in b_out
    assert c_status == 1 and "So only friends on your network can join you" in c_out
    assert f"This machine's addresses: {lab.lan('c1')}, {lab.lan('c1', 6)}" in c_out
    assert "dnat" not in lab.mappings("a") + lab.mappings("b")  # closed again at once
    assert not RAW.search(a_err + a_out + c_out), a_err


def test_a_flooded_lan_with_a_spoofed_announcement_still_leads_a_joiner_to_the_host_it_knows(
    lab: Lab, tmp_path: Path
) -> None:
    """Issue 19's attacks on mDNS, on the real stack: eve floods the LAN with 1,500 valid-looking
    games and announces ann's name and key at her own address. Bob, who has played ann, still
    gets ann first in the list (listed once, her real address dialed too), and plays her."""
    from p2p.identity import KnownPeers, load_identity

    host = lab.trumps("c1", tmp_path / "ann", "--name", "ann", "--json", "--timeout", "20", "--no-map",
                      entry=("-m", "tests.lan_host"), stdin=True)  # fmt: skip
    eve = None
    try:
        invite = Invite.parse(host.invite())
        ann = load_identity(tmp_path / "ann" / "config" / "trumps" / "identity.key")
        KnownPeers(tmp_path / "bob" / "config" / "trumps" / "known_peers.json").check("ann", ann.public)
        eve = subprocess.Popen(
            ["ip", "netns", "exec", lab.ns("c2"), sys.executable, "-m", "tests.mdns_spoof", "1500", "ann",
             invite.fingerprint, lab.lan("c2"), "20"],
            cwd=REPO, env=os.environ | {"PYTHONPATH": str(REPO)}, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        time.sleep(1.5)  # the flood is on before bob looks
        joiner = lab.trumps("c2", tmp_path / "bob", "join", "--name", "bob", *BOT)
        try:
            host.wait_for("wants to join")
        except RuntimeError as exc:
            raise AssertionError(f"{exc}; bob: {joiner.finish(10)[1][-1500:]}") from None
        host.type("y\n")
        _, _, join_err = _played(host, joiner)
    finally:
        host.stop()
        if eve is not None:
            eve.kill()
            eve.wait(10)
    assert "1. ann: one game" in join_err and f"({lab.lan('c1')} port {PORT})" in join_err
    assert join_err.count(": one game,") == MAX_LISTED and "more games announced" in join_err


_EVE_UPNP = """
import miniupnpc
u = miniupnpc.UPnP(); u.discover(); u.selectigd()
for call in (lambda: u.deleteportmapping({port}, "TCP"),
             lambda: u.addportmapping({port}, "TCP", u.lanaddr, {port}, "eve", "", 1200),
             lambda: u.addportmapping({port}, "TCP", {victim!r}, {port}, "eve", "", 1200)):
    try:
        print(call())
    except Exception as exc:
        print(exc)
"""
_EVE_NATPMP_PCP = """
import ipaddress, os, socket
from p2p.portmap import natpmp, pcp
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(3); s.connect(({router!r}, 5351))
def ask(request):
    s.send(request)
    return s.recv(1100)
print(natpmp.parse_map_answer(ask(natpmp.delete_request({port})), {port}).lifetime)
print(natpmp.parse_map_answer(ask(natpmp.map_request({port}, {port}, 1200)), {port}).external_port)
me = ipaddress.ip_address(s.getsockname()[0])
ask(pcp.map_request(os.urandom(12), me, {port}, {port}, 0))  # delete "its" mapping: whatever the answer
print("pcp-delete-sent")
nonce = os.urandom(12)
print(pcp.parse_map_answer(ask(pcp.map_request(nonce, me, {port}, {port}, 1200)), nonce, {port}).external_port)
"""


def test_another_machine_on_the_lan_can_neither_delete_nor_take_over_the_hosts_mapping(
    lab: Lab, tmp_path: Path
) -> None:
    """Issue 19's attack on port mapping, against the real daemon: eve, on ann's LAN, asks the
    router to delete ann's mapping and to give ann's port to herself (or to ann's address, as a
    router without secure mode would let her), by UPnP, NAT-PMP and PCP. miniupnpd in secure mode
    refuses each: ann's mapping stays, eve gets another port. (Where a router does let it happen,
    the host finds out at its next look: tests/test_portmap.py.)"""
    host_a, _ = _host(lab, "a1", tmp_path / "a", "--no-announce")
    host_b, _ = _host(lab, "b1", tmp_path / "b", "--no-announce")
    try:
        upnp = lab.exec("a2", sys.executable, "-c", _EVE_UPNP.format(port=PORT, victim=lab.lan("a1"))).stdout
        env = ["env", f"PYTHONPATH={REPO}"]
        natpmp = lab.exec("b2", *env, sys.executable, "-c", _EVE_NATPMP_PCP.format(router=lab.router_lan("b"), port=PORT))
        mapped_a, mapped_b = lab.mappings("a"), lab.mappings("b")
    finally:
        host_a.stop()
        host_b.stop()
    assert upnp.split("\n")[:3] == ["Action not authorized", "ConflictInMappingEntry", "ConflictInMappingEntry"]
    lifetime, natpmp_port, _, pcp_port = natpmp.stdout.split()
    assert lifetime == "0" and int(natpmp_port) != PORT and int(pcp_port) != PORT  # eve's own, elsewhere
    assert f"dport {PORT} dnat ip to {lab.lan('a1')}:{PORT}" in mapped_a
    assert f"dport {PORT} dnat ip to {lab.lan('b1')}:{PORT}" in mapped_b
