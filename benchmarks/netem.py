"""A whole bot match across two network namespaces joined by a veth pair, under delay, jitter and loss.

Run (as root): .venv/bin/python benchmarks/netem.py [--games N] [--delay MS] [--jitter MS] [--loss PCT]
                                                    [--cuts K] [--json]

Builds namespaces ``trumps-<pid>-host`` and ``trumps-<pid>-join``, a veth pair between them
with 10.77.0.1/24 (host) and 10.77.0.2/24 (joiner) and nothing else: no route out, no other
address is ever used. ``tc netem`` on both ends adds the delay (each way), jitter and loss.
Where the kernel has no netem, the script says so and impairs the line in user space instead:
a relay in the host's namespace delays every chunk by delay ± jitter each way (no packet
loss then). ``--cuts K`` also makes the relay cut the connection K times during the match,
so that reconnecting and resuming are exercised across the namespaces.

It runs ``trumps host`` in one namespace and ``trumps join`` in the other, both ``--bot``,
checks both records with ``trumps verify``, and reports setup time (connect + handshake,
and until the first deal is known) and the per-move latency (a move sent until the peer's
answer arrived, bots answering instantly). The namespaces are deleted however it ends.
Exit status: 0 when the match completed and both records verify, 1 otherwise, and 0 with a
``SKIP:`` line when it cannot run here (not root, no ``ip``, no network namespaces).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HOST_ADDRESS, JOIN_ADDRESS = "10.77.0.1", "10.77.0.2"
PORT, RELAY_PORT = 47111, 47112


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check, timeout=10)


def skip_reason() -> str | None:
    """Why this cannot run here, or ``None``."""
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    if shutil.which("ip") is None:
        return "the 'ip' command (iproute2) is not installed"
    probe = f"trumps-{os.getpid()}-probe"
    if _ip("netns", "add", probe, check=False).returncode != 0:
        return "network namespaces are not available ('ip netns add' failed)"
    _ip("netns", "del", probe, check=False)
    return None


class Namespaces:
    """Two namespaces and a veth pair; deleted on exit, whatever happened."""

    def __init__(self) -> None:
        self.host = f"trumps-{os.getpid()}-host"
        self.join = f"trumps-{os.getpid()}-join"

    def __enter__(self) -> Namespaces:
        try:
            for name in (self.host, self.join):
                _ip("netns", "add", name)
                _ip("-n", name, "link", "set", "lo", "up")
            _ip(
                "-n",
                self.host,
                "link",
                "add",
                "veth-h",
                "type",
                "veth",
                "peer",
                "name",
                "veth-j",
                "netns",
                self.join,
            )
            for name, dev, address in (
                (self.host, "veth-h", HOST_ADDRESS),
                (self.join, "veth-j", JOIN_ADDRESS),
            ):
                _ip("-n", name, "addr", "add", f"{address}/24", "dev", dev)
                _ip("-n", name, "link", "set", dev, "up")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for name in (self.host, self.join):
            _ip("netns", "del", name, check=False)

    def netem(self, delay: int, jitter: int, loss: float) -> str | None:
        """Add netem to both ends; the reason when the kernel cannot."""
        for name, dev in ((self.host, "veth-h"), (self.join, "veth-j")):
            spec = ["delay", f"{delay}ms", f"{jitter}ms", "distribution", "normal"] if delay else []
            spec += ["loss", f"{loss}%"] if loss else []
            if not spec:
                return None
            done = subprocess.run(
                ["ip", "netns", "exec", name, "tc", "qdisc", "add", "dev", dev, "root", "netem", *spec],
                capture_output=True, text=True, timeout=10,
            )  # fmt: skip
            if done.returncode != 0:
                return (
                    f"tc netem failed ({done.stderr.strip() or done.returncode}): the kernel lacks sch_netem?"
                )
        return None


# ------------------------------------------------------------- user-space relay


async def relay(listen: str, port: int, target: int, delay: float, jitter: float, cuts: list[float]) -> None:
    """Forward ``listen:port`` to ``listen:target``, each chunk delayed by delay ± jitter seconds (in
    order), cutting every connection at each time in ``cuts`` (seconds from the first connection)."""
    open_writers: list[asyncio.StreamWriter] = []
    started: list[float] = []

    async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        last = 0.0

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                sink.write(data)
                await sink.drain()

        deliverer = asyncio.create_task(deliver())
        with contextlib.suppress(ConnectionError, OSError):
            while data := await source.read(65536):
                last = max(last, time.monotonic() + max(0.0, random.gauss(delay, jitter)))
                queue.put_nowait((last, data))
        await asyncio.sleep(max(0.0, last - time.monotonic()))
        deliverer.cancel()
        sink.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not started:
            started.append(time.monotonic())
            asyncio.get_running_loop().create_task(cutter())
        try:
            up_reader, up_writer = await asyncio.open_connection(listen, target)
        except OSError:
            writer.transport.abort()
            return
        open_writers.extend((writer, up_writer))
        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer), return_exceptions=True)

    async def cutter() -> None:
        for at in sorted(cuts):
            await asyncio.sleep(max(0.0, started[0] + at - time.monotonic()))
            print(f"relay: cutting the line at {at:.1f} s", file=sys.stderr, flush=True)
            for writer in open_writers:
                writer.transport.abort()
            open_writers.clear()

    server = await asyncio.start_server(handle, listen, port)
    async with server:
        await server.serve_forever()


# ------------------------------------------------------------------- the match


def _trumps(namespace: str, home: Path, *args: str) -> subprocess.Popen[str]:
    env = os.environ | {"XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data")}
    return subprocess.Popen(
        ["ip", "netns", "exec", namespace, sys.executable, "-m", "cli", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO,
    )  # fmt: skip


def _summary(process: subprocess.Popen[str], limit: float) -> tuple[dict[str, object], str]:
    out, err = process.communicate(timeout=limit)
    lines = out.strip().splitlines()
    try:
        return json.loads(lines[-1]), err
    except (IndexError, ValueError):
        return {"end": "no summary", "error": err.strip()[-500:]}, err


def play(args: argparse.Namespace) -> dict[str, object]:
    """Set up, play one bot match across the namespaces, verify, clean up; the figures."""
    report: dict[str, object] = {"games": args.games}
    root = Path(tempfile.mkdtemp(prefix="trumps-netem-"))
    processes: list[subprocess.Popen[str] | subprocess.Popen[bytes]] = []  # the trumps ones, the relay
    try:
        started = time.monotonic()
        with Namespaces() as spaces:
            impaired = None if args.cuts else spaces.netem(args.delay, args.jitter, args.loss)
            report["namespaces_s"] = round(time.monotonic() - started, 3)
            port = PORT
            if args.cuts or impaired is not None:
                why = impaired or f"{args.cuts} cut(s) asked for"
                report["impairment"] = (
                    f"user-space relay: {args.delay} ± {args.jitter} ms each way, no loss ({why})"
                )
                span = max(2.0, args.cut_span)
                cuts = [span * (i + 1) / (args.cuts + 1) for i in range(args.cuts)]
                processes.append(
                    subprocess.Popen(
                        [
                            "ip",
                            "netns",
                            "exec",
                            spaces.host,
                            sys.executable,
                            __file__,
                            "--relay",
                            f"{args.delay},{args.jitter},{','.join(map(str, cuts))}",
                        ],
                        cwd=REPO,
                    )
                )
                port = RELAY_PORT
                time.sleep(0.5)
            else:
                report["impairment"] = (
                    f"tc netem: delay {args.delay} ms ± {args.jitter} ms, loss {args.loss}% each way"
                )
            timeout = ["--timeout", str(args.patience)]
            host = _trumps(spaces.host, root / "ann", "host", "--bind", HOST_ADDRESS, "--port", str(PORT), "--no-map",
                           "--bot", "easy", "--games", str(args.games), "--json", "--name", "ann", *timeout)  # fmt: skip
            processes.append(host)
            assert host.stdout is not None
            keys = host.stdout.readline().strip().split("/", 1)[1]  # the fingerprint and the secret
            invite = f"{HOST_ADDRESS}:{port}/{keys}"  # through the relay when there is one
            joiner = _trumps(
                spaces.join,
                root / "bob",
                "join",
                invite,
                "--bot",
                "easy",
                "--json",
                "--name",
                "bob",
                *timeout,
            )
            processes.append(joiner)
            limit = args.limit
            join_summary, join_err = _summary(joiner, limit)
            host_summary, host_err = _summary(host, limit)
            report |= _figures(host_summary, join_summary)
            if report["end"] != "complete":
                report["stderr"] = {"host": host_err[-800:], "join": join_err[-800:]}
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(5)
                if process.poll() is None:
                    process.kill()
        shutil.rmtree(root, ignore_errors=True)
    return report


def _figures(host: dict[str, object], joiner: dict[str, object]) -> dict[str, object]:
    from p2p.record import verify

    figures: dict[str, object] = {"end": host.get("end") if host.get("end") == joiner.get("end") else
                                  f"host {host.get('end')}, joiner {joiner.get('end')}"}  # fmt: skip
    verified = []
    for summary in (host, joiner):
        with contextlib.suppress(Exception):
            verified.append(verify(Path(str(summary["record"])).read_text()).complete)
    figures["records_verify_complete"] = verified == [True, True]
    figures["same_transcript"] = host.get("transcript") == joiner.get("transcript")
    figures["result"] = host.get("result")
    timing_h = host.get("timing") if isinstance(host.get("timing"), dict) else {}
    timing_j = joiner.get("timing") if isinstance(joiner.get("timing"), dict) else {}
    assert isinstance(timing_h, dict) and isinstance(timing_j, dict)
    if "handshake_s" in timing_j and "deal_s" in timing_j:
        figures["setup_handshake_s"] = timing_j["handshake_s"]
        figures["setup_until_first_deal_s"] = round(timing_j["handshake_s"] + timing_j["deal_s"], 3)
    for side, timing in (("host", timing_h), ("joiner", timing_j)):
        if "move_ms_median" in timing:
            figures[f"move_latency_ms_{side}"] = {
                k: timing[k] for k in ("move_ms_median", "move_ms_p90", "moves_timed")
            }
    figures["reconnects"] = [host.get("reconnects"), joiner.get("reconnects")]
    if "resume_s_max" in timing_j:
        figures["slowest_resume_s"] = timing_j["resume_s_max"]  # from the joiner noticing the cut to playing
    figures["match_s"] = timing_j.get("match_s")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--delay", type=int, default=100, help="ms each way (default 100)")
    parser.add_argument("--jitter", type=int, default=20, help="ms (default 20)")
    parser.add_argument("--loss", type=float, default=3.0, help="percent each way (default 3)")
    parser.add_argument("--cuts", type=int, default=0, help="cut the line this many times (user-space relay)")
    parser.add_argument("--cut-span", type=float, default=10.0, help="spread the cuts over this many seconds")
    parser.add_argument("--patience", type=float, default=60.0, help="the bots' --timeout (seconds)")
    parser.add_argument(
        "--limit", type=float, default=600.0, help="give up on the match after this many seconds"
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON line")
    parser.add_argument("--relay", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.relay:
        delay, jitter, *cuts = (float(x) for x in args.relay.split(",") if x)
        asyncio.run(relay(HOST_ADDRESS, RELAY_PORT, PORT, delay / 1e3, jitter / 1e3, cuts))
        return 0
    for sig in (signal.SIGTERM, signal.SIGHUP):  # run the clean-up (finally blocks) when killed
        signal.signal(sig, lambda number, frame: sys.exit(1))
    reason = skip_reason()
    if reason is not None:
        print(f"SKIP: {reason}")
        return 0
    sys.path.insert(0, str(REPO))
    report = play(args)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    ok = (
        report.get("end") == "complete"
        and report.get("records_verify_complete")
        and report.get("same_transcript")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
