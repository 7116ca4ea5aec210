"""Reaching a friend across the namespace lab (tests/netlab.py): how long until the invite, the
connection through the router's mapped port, and the per-move latency at 0 %, 5 % and 10 % loss.

Run (as root): .venv/bin/python benchmarks/netlab.py [--games N] [--losses 0,5,10] [--rerun-after S] [--json]

Builds the lab (three homes behind NAT routers; home a's speaks UPnP, home b's PCP/NAT-PMP),
then, one at a time:
- ``trumps host`` in home a and in home b, and with ``--no-map``: seconds from starting the
  program to its printed invite (Python start-up, the identity, asking the router);
- back in play: the same match with the joiner, then the host, ``kill -9``ed mid-game and started
  again with the same command (at once, and the host also ``--rerun-after`` seconds later, as a
  person would): seconds from the restart to the first new link in its record;
- a router restart mid-match (home a's): seconds until the joiner is back in play;
- a second host behind home a's router on the same port: the port its invite names;
- for each loss: a bot match from home b to home a through the port a's router opened by UPnP,
  loss made by ``iptables -m statistic`` on both players' outgoing packets (so each way); the
  joiner's connect + handshake time, the per-move latency (a move sent until the answer came,
  bots answering at once) on both sides, TCP-level drops counted, both records verified.
Exit status 0 when every match completed and verified; 0 with a ``SKIP:`` line where the lab
cannot be built (not root, no ``ip netns``, no miniupnpd). Everything is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from p2p.record import verify  # noqa: E402  (after the path is set)
from tests.netlab import Lab, Program, conntrack_reason, poll, record_lines, skip_reason  # noqa: E402

BOT = ["--bot", "easy", "--json", "--timeout", "30"]


def time_to_invite(lab: Lab, role: str, root: Path, *options: str) -> float:
    """Seconds from starting ``trumps host`` in ``role`` to its printed invite (the host is then stopped)."""
    host = lab.trumps(role, root / f"invite-{role}", "host", "--name", "ann", *BOT, *options)
    try:
        host.invite()
        return round(host.first_line_s, 3)
    finally:
        host.stop()


def back_in_play(lab: Lab, root: Path, victim: str, rerun_after: float) -> float:
    """Seconds from restarting ``victim`` (``ann`` hosts in home a, ``bob`` joins from home b through
    the UPnP-mapped port, by the invite as printed, LAN address included), killed mid-game and run
    again ``rerun_after`` seconds later, to the first new link in its record; the match is then
    played to its end and both records must verify complete."""
    where = {"ann": ("a1", ("host", "--name", "ann", "--games", "2", *BOT))}
    host = lab.trumps("a1", root / "ann", *where["ann"][1])
    programs = [host]
    try:
        invite = host.invite()
        where["bob"] = ("b1", ("join", invite, "--name", "bob", *BOT))
        joiner = lab.trumps("b1", root / "bob", *where["bob"][1])
        programs.append(joiner)
        records = root / victim / "data" / "trumps" / "matches"
        poll(lambda: record_lines(records, "move") >= 6)
        killed = host if victim == "ann" else joiner
        killed.process.kill()
        killed.process.wait()
        links = record_lines(records, "link")
        time.sleep(rerun_after)
        started = time.monotonic()
        role, command = where[victim]
        again = lab.trumps(role, root / victim, *command)
        programs.append(again)
        poll(lambda: record_lines(records, "link") > links)
        back = time.monotonic() - started
        _complete(again, joiner if victim == "ann" else host)
        return round(back, 3)
    finally:
        for program in programs:
            program.stop()


def _complete(*programs: Program) -> None:
    for program in programs:
        summary, err = program.finish(120)
        if summary.get("end") != "complete":
            raise RuntimeError(f"the match did not complete: {err[-800:]}")
        if not verify(Path(str(summary["record"])).read_text()).complete:
            raise RuntimeError("a record does not verify complete")


def router_restart(lab: Lab, root: Path) -> float:
    """Seconds from home a's router restarting mid-match (miniupnpd restarted, its chains and
    conntrack flushed) to bob, joined from home b through the mapped port, being back in play
    (his "reconnected" line); the match must then complete."""
    host = lab.trumps("a1", root / "ann", "host", "--name", "ann", "--games", "2", *BOT)
    programs = [host]
    try:
        joiner = lab.trumps("b1", root / "bob", "join", host.invite(), "--name", "bob", *BOT)
        programs.append(joiner)
        poll(lambda: record_lines(root / "ann" / "data" / "trumps" / "matches", "move") >= 6)
        started = time.monotonic()
        lab.restart_router("a")
        joiner.wait_for("reconnected to ann", 60)
        pause = time.monotonic() - started
        _complete(host, joiner)
        return round(pause, 3)
    finally:
        for program in programs:
            program.stop()


def second_host_port(lab: Lab, root: Path) -> str:
    """The invite's first address of a second host behind home a's router on the same port."""
    first = lab.trumps("a1", root / "first", "host", "--name", "ann", "--no-announce", *BOT)
    try:
        first.invite()
        second = lab.trumps("a2", root / "second", "host", "--name", "ann", "--no-announce", *BOT)
        try:
            return second.invite().split(",")[0]
        finally:
            second.stop()
    finally:
        first.stop()


def match(lab: Lab, root: Path, games: int, loss: float) -> dict[str, object]:
    """One bot match, home b joining home a through the UPnP-mapped port, at ``loss`` each way."""
    players = ("a1", "b1") if loss else ()
    for role in players:
        lab.lossy(role, loss)
    try:
        host = lab.trumps("a1", root / f"ann-{loss}", "host", "--name", "ann", "--games", str(games), *BOT)
        try:
            invite = host.invite()
            joiner = lab.trumps("b1", root / f"bob-{loss}", "join", invite, "--name", "bob", *BOT)
            mine, join_err = joiner.finish(150)
            theirs, host_err = host.finish(30)
        finally:
            host.stop()
        dropped = [lab.dropped(role) for role in players]
    finally:
        for role in players:
            lab.lossless(role)
    figures: dict[str, object] = {
        "loss_each_way": loss,
        "invite": invite,
        "end": [theirs.get("end"), mine.get("end")],
    }
    verified = []
    for summary in (theirs, mine):
        try:
            verified.append(verify(Path(str(summary["record"])).read_text()).complete)
        except (KeyError, OSError, ValueError):
            verified.append(False)
    figures["records_verify_complete"] = verified == [True, True]
    transcripts = mine.get("transcript"), theirs.get("transcript")
    figures["same_transcript"] = bool(transcripts[0]) and transcripts[0] == transcripts[1]
    timing_j, timing_h = mine.get("timing") or {}, theirs.get("timing") or {}
    assert isinstance(timing_j, dict) and isinstance(timing_h, dict)
    figures["connect_handshake_s"] = timing_j.get("handshake_s")
    for side, timing in (("host", timing_h), ("joiner", timing_j)):
        figures[f"move_ms_{side}"] = {
            k: timing.get(k) for k in ("move_ms_median", "move_ms_p90", "moves_timed")
        }
    figures["packets_dropped"] = dropped
    figures["reconnects"] = [theirs.get("reconnects"), mine.get("reconnects")]
    figures["match_s"] = timing_j.get("match_s")
    if figures["end"] != ["complete", "complete"]:
        figures["stderr"] = {"host": host_err[-600:], "join": join_err[-600:]}
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per match (default 3)")
    parser.add_argument("--losses", default="0,5,10", help="loss percentages each way (default 0,5,10)")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON line")
    parser.add_argument(
        "--rerun-after",
        type=float,
        default=6.0,
        help="seconds before the killed host is run again (default 6)",
    )
    args = parser.parse_args()
    for number in (signal.SIGTERM, signal.SIGHUP):  # run the clean-up (finally blocks) when killed
        signal.signal(number, lambda *_: sys.exit(1))
    reason = skip_reason()
    if reason is not None:
        print(f"SKIP: {reason}")
        return 0
    report: dict[str, object] = {}
    started = time.monotonic()
    with Lab() as lab, tempfile.TemporaryDirectory(prefix="trumps-netlab-bench-") as folder:
        report["lab_build_s"] = round(time.monotonic() - started, 3)
        root = Path(folder)
        report["host_to_invite_s"] = {
            "UPnP (home a)": time_to_invite(lab, "a1", root),
            "PCP (home b)": time_to_invite(lab, "b1", root),
            "no router answers (home c)": time_to_invite(lab, "c1", root),
            "--no-map": time_to_invite(lab, "a1", root, "--no-map"),
        }
        report["back_in_play_after_kill_9_s"] = {
            "joiner, rerun at once": back_in_play(lab, root / "restart-joiner", "bob", 0.0),
            "host, rerun at once": back_in_play(lab, root / "restart-host", "ann", 0.0),
            f"host, rerun after {args.rerun_after:g} s": back_in_play(
                lab, root / "restart-host-later", "ann", args.rerun_after
            ),
        }
        if conntrack_reason() is None:
            report["router_restart_pause_s"] = router_restart(lab, root / "router-restart")
        report["second_host_invite"] = second_host_port(lab, root / "second-host")
        report["matches"] = [match(lab, root, args.games, float(p) / 100) for p in args.losses.split(",")]
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        for key, value in report.items():
            if key == "matches":
                assert isinstance(value, list)
                for figures in value:
                    print(f"match: {json.dumps(figures, ensure_ascii=False)}")
            else:
                print(f"{key}: {value}")
    matches = report["matches"]
    assert isinstance(matches, list)
    ok = all(m["records_verify_complete"] and m["same_transcript"] for m in matches)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
