"""A small internet in network namespaces: three homes behind NAT routers, one "internet" between them.

::

                         inet  (bridge "wan": 11.0.0.254/24, 2001:db8:ff::fe/64)
          ┌────────────────────┼─────────────────────┐
    router a 11.0.0.1     router b 11.0.0.2      router c 11.0.0.3
    miniupnpd: UPnP       miniupnpd: NAT-PMP+PCP  no port mapping at all
    (+ PCP over IPv6)     (+ PCP over IPv6)
    lan 10.1.0.1/24       lan 10.2.0.1/24         lan 10.3.0.1/24
        2001:db8:1::1/64      2001:db8:2::1/64        2001:db8:3::1/64
      a1 (.10), a2 (.11)    b1 (.10), b2 (.11)      c1 (.10), c2 (.11)

Every router masquerades its LAN behind its WAN address (nftables) and lets
no new IPv6 connection in from the internet (a home router's firewall)
unless its port-mapping daemon opened a pinhole. The internet routes no private
address: from another home, a LAN address is a black hole, as on the real one.
:meth:`Lab.restart_router` restarts a router as a reboot would (the daemon, its
mappings, the connection tracking all gone). ``11.0.0.0/8`` looks public
to miniupnpd (which refuses private WAN addresses) but is only ever used
inside these namespaces: :meth:`Lab.check_isolated` proves that no
namespace holds anything but the links made here and routes to these prefixes.

Namespaces are named ``tl<pid>x<n>-<role>`` so that runs never collide; everything
(namespaces, daemons, ``/etc/netns`` files) is removed by :meth:`Lab.close`,
which the fixtures and the benchmark call however they end. Loss comes from
``iptables -m statistic`` (this kernel has no netem).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_COUNTER = itertools.count()
MINIUPNPD = "miniupnpd"
_COMMAND_LIMIT = 15.0


def skip_reason() -> str | None:
    """Why the lab cannot be built here (one clear reason), or ``None``."""
    if os.name != "posix" or os.geteuid() != 0:
        return "the network lab needs root (it creates network namespaces)"
    for tool, package in (("ip", "iproute2"), ("nft", "nftables"), ("iptables", "iptables")):
        if shutil.which(tool) is None:
            return f"the network lab needs '{tool}' (apt-get install {package})"
    if shutil.which(MINIUPNPD) is None:
        return "the network lab needs miniupnpd (apt-get install miniupnpd-nftables)"
    probe = f"tl{os.getpid()}probe"
    if _run("ip", "netns", "add", probe, check=False).returncode != 0:
        return "network namespaces are not available here ('ip netns add' failed)"
    _run("ip", "netns", "del", probe, check=False)
    return None


def conntrack_reason() -> str | None:
    """Why :meth:`Lab.restart_router` cannot flush a router's connection tracking here, or ``None``."""
    return None if shutil.which("conntrack") else "restarting a router needs 'conntrack' (apt-get install conntrack)"


def poll(ready: Callable[[], bool], limit: float = 60.0, what: str = "the match did not get there") -> None:
    """Wait until ``ready()`` (looked at every few milliseconds), at most ``limit`` seconds."""
    end = time.monotonic() + limit
    while not ready():
        if time.monotonic() > end:
            raise TimeoutError(what)
        time.sleep(0.005)


def record_lines(records: Path, kind: str) -> int:
    """The most lines of ``kind`` (``link``, ``move``…) in one match record under ``records``."""
    needle = f'"t": "{kind}"' if kind != "link" else '"link"'
    return max((path.read_text().count(needle) for path in records.glob("*.jsonl")), default=0)


def _run(*argv: str, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, capture_output=True, text=True, input=stdin, timeout=_COMMAND_LIMIT)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return done


_RULESET = """
table inet filter {
  chain miniupnpd { }
  chain prerouting_miniupnpd { }
  chain postrouting_miniupnpd { }
  chain forward {
    type filter hook forward priority 0; policy accept;
    jump miniupnpd
    ct state established,related accept
    iifname "wan" meta nfproto ipv6 drop
  }
  chain prerouting { type nat hook prerouting priority -100; jump prerouting_miniupnpd; }
  chain postrouting {
    type nat hook postrouting priority 100; jump postrouting_miniupnpd
    oifname "wan" meta nfproto ipv4 masquerade
  }
}
"""
"""The home router's firewall: NAT out, nothing new in unless miniupnpd added it (chains as it expects)."""

_MINIUPNPD_CONF = """ext_ifname=wan
listening_ip=lan
port=5000
enable_natpmp={natpmp}
enable_upnp={upnp}
secure_mode=yes
system_uptime=no
uuid=3d3cec3a-8cf0-11e0-98ee-00000000000{number}
allow 1024-65535 {lan4}/24 1024-65535
deny 0-65535 0.0.0.0/0 0-65535
upnp_table_name=filter
upnp_nat_table_name=filter
upnp_forward_chain=miniupnpd
upnp_nat_chain=prerouting_miniupnpd
upnp_nat_postrouting_chain=postrouting_miniupnpd
"""


@dataclass(frozen=True)
class HomeSpec:
    """One home: its number (the LAN is 10.N.0.0/24 and 2001:db8:N::/64), what its router speaks, its hosts."""

    number: int
    upnp: bool
    natpmp: bool
    hosts: int = 1

    @property
    def mapping(self) -> bool:
        return self.upnp or self.natpmp


HOMES = {"a": HomeSpec(1, upnp=True, natpmp=False, hosts=2), "b": HomeSpec(2, upnp=False, natpmp=True, hosts=2),
         "c": HomeSpec(3, upnp=False, natpmp=False, hosts=2)}  # fmt: skip


@dataclass
class Lab:
    """The namespaces of one run; :meth:`build` makes them, :meth:`close` removes every trace."""

    homes: dict[str, HomeSpec] = field(default_factory=lambda: dict(HOMES))
    prefix: str = field(default_factory=lambda: f"tl{os.getpid()}x{next(_COUNTER)}")
    namespaces: list[str] = field(default_factory=list)
    daemons: dict[str, subprocess.Popen[str]] = field(default_factory=dict)
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="trumps-netlab-")))
    links: dict[str, set[str]] = field(default_factory=dict)

    # ---------------------------------------------------------------- names and addresses

    def ns(self, role: str) -> str:
        """The namespace of ``role``: ``inet``, ``ra`` (router of home a), ``a1`` (first host of home a)…"""
        return f"{self.prefix}-{role}"

    @staticmethod
    def wan(home: str) -> str:
        """The router's public IPv4 address."""
        return f"11.0.0.{HOMES[home].number}"

    def lan(self, host: str, version: int = 4) -> str:
        """The address of host ``a1``, ``c2``… (IPv4 or its global IPv6)."""
        number, index = self.homes[host[0]].number, int(host[1:])
        return f"10.{number}.0.{9 + index}" if version == 4 else f"2001:db8:{number}::{9 + index:x}"

    def router_lan(self, home: str) -> str:
        return f"10.{self.homes[home].number}.0.1"

    # ---------------------------------------------------------------- building

    def build(self) -> Lab:
        """Create everything; on any failure, remove what was made and raise."""
        try:
            self._add("inet")
            self._ip("inet", "link add wan type bridge", "link set wan up",
                     "addr add 11.0.0.254/24 dev wan", "addr add 2001:db8:ff::fe/64 dev wan nodad")  # fmt: skip
            self._sysctl("inet", "net.ipv6.conf.all.forwarding=1")
            for home, spec in self.homes.items():
                self._build_home(home, spec)
            self.check_isolated()
        except BaseException:
            self.close()
            raise
        return self

    def _build_home(self, home: str, spec: HomeSpec) -> None:
        router, n = f"r{home}", spec.number
        self._add(router)
        self._veth(router, "wan", "inet", f"w{home}", bridge="wan")
        self._ip(router, "link add lan type bridge", "link set lan up",
                 f"addr add 11.0.0.{n}/24 dev wan", f"addr add 2001:db8:ff::{n}/64 dev wan nodad",
                 f"addr add 10.{n}.0.1/24 dev lan", f"addr add 2001:db8:{n}::1/64 dev lan nodad",
                 "route add default via 11.0.0.254", "route add default via 2001:db8:ff::fe")  # fmt: skip
        self._ip("inet", f"route add 2001:db8:{n}::/64 via 2001:db8:ff::{n}")
        self._sysctl(router, "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1")
        _run("ip", "netns", "exec", self.ns(router), "nft", "-f", "-", stdin=_RULESET)
        for index in range(1, spec.hosts + 1):
            host = f"{home}{index}"
            self._add(host)
            self._veth(host, "eth0", router, f"h{index}", bridge="lan")
            self._ip(host, f"addr add {self.lan(host)}/24 dev eth0",
                     f"addr add {self.lan(host, 6)}/64 dev eth0 nodad",
                     f"route add default via 10.{n}.0.1", f"route add default via 2001:db8:{n}::1")  # fmt: skip
        if spec.mapping:
            self._start_miniupnpd(home, spec)

    def _start_miniupnpd(self, home: str, spec: HomeSpec) -> None:
        conf = self.workdir / f"miniupnpd-{home}.conf"
        conf.write_text(
            _MINIUPNPD_CONF.format(
                natpmp="yes" if spec.natpmp else "no",
                upnp="yes" if spec.upnp else "no",
                number=spec.number,
                lan4=f"10.{spec.number}.0.0",
            )
        )
        log = (self.workdir / f"miniupnpd-{home}.log").open("w")
        daemon = subprocess.Popen(
            ["ip", "netns", "exec", self.ns(f"r{home}"), MINIUPNPD, "-f", str(conf), "-d",
             "-P", str(self.workdir / f"miniupnpd-{home}.pid")],
            stdout=log, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        self.daemons[home] = daemon
        self._wait_listening(
            f"r{home}", daemon, udp=5351 if spec.natpmp else None, tcp=5000 if spec.upnp else None
        )

    def _wait_listening(
        self, role: str, daemon: subprocess.Popen[str], udp: int | None, tcp: int | None
    ) -> None:
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            if daemon.poll() is not None:
                raise RuntimeError(f"miniupnpd in {role} exited: {self.daemon_log(role[1:])[-800:]}")
            listening = self.exec(role, "ss", "-lnH", "-tu").stdout
            if (udp is None or f":{udp} " in listening) and (tcp is None or f":{tcp} " in listening):
                return
            time.sleep(0.05)
        raise RuntimeError(f"miniupnpd in {role} did not start listening: {self.daemon_log(role[1:])[-800:]}")

    def daemon_log(self, home: str) -> str:
        """What the home router's miniupnpd logged so far."""
        with contextlib.suppress(OSError):
            return (self.workdir / f"miniupnpd-{home}.log").read_text(errors="replace")
        return ""

    def _add(self, role: str) -> None:
        _run("ip", "netns", "add", self.ns(role))
        self.namespaces.append(self.ns(role))
        self.links[role] = {"lo"}
        self._ip(role, "link set lo up")

    def _veth(self, role: str, name: str, peer_role: str, peer: str, bridge: str) -> None:
        _run("ip", "-n", self.ns(role), "link", "add", name, "type", "veth", "peer", "name", peer,
             "netns", self.ns(peer_role))  # fmt: skip
        self._ip(peer_role, f"link set {peer} master {bridge}", f"link set {peer} up")
        self._ip(role, f"link set {name} up")
        self.links[role].add(name)
        self.links[peer_role] |= {peer, bridge}

    def _ip(self, role: str, *commands: str) -> None:
        _run("ip", "-n", self.ns(role), "-batch", "-", stdin="\n".join(commands) + "\n")
        self.links[role] |= {c.split()[2] for c in commands if c.startswith("link add")}

    def _sysctl(self, role: str, *settings: str) -> None:
        self.exec(role, "sysctl", "-q", "-w", *settings)

    # ---------------------------------------------------------------- using it

    def exec(self, role: str, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` inside ``role``'s namespace and wait (bounded)."""
        return _run("ip", "netns", "exec", self.ns(role), *argv, check=check)

    def check_isolated(self) -> None:
        """Every namespace holds only the links made here, and routes only to this lab's prefixes."""
        ours = ("10.", "11.0.0.", "2001:db8:", "fe80::", "ff00::", "127.", "::1", "default")
        for role, expected in self.links.items():
            shown = json.loads(_run("ip", "-n", self.ns(role), "-j", "link", "show").stdout)
            names = {link["ifname"] for link in shown}
            if names != expected:
                raise RuntimeError(f"namespace {role} has links {names}, expected {expected}")
            for version in ("-4", "-6"):
                table = json.loads(
                    _run("ip", "-n", self.ns(role), version, "-j", "route", "show", "table", "all").stdout
                )
                for route in table:
                    where = str(route.get("dst", ""))
                    if not where.startswith(ours) or route.get("dev") not in expected:
                        raise RuntimeError(f"namespace {role} routes {route} outside the lab")

    def lossy(self, role: str, probability: float) -> None:
        """Drop each packet ``role`` sends with ``probability`` (IPv4 and IPv6)."""
        for tool in ("iptables", "ip6tables"):
            self.exec(role, tool, "-A", "OUTPUT", "-m", "statistic", "--mode", "random",
                      "--probability", str(probability), "-j", "DROP")  # fmt: skip

    def dropped(self, role: str) -> int:
        """Packets :meth:`lossy` has dropped in ``role`` so far (IPv4 and IPv6)."""
        total = 0
        for tool in ("iptables", "ip6tables"):
            listed = self.exec(role, tool, "-L", "OUTPUT", "-v", "-x", "-n").stdout.splitlines()[2:]
            total += sum(int(line.split()[0]) for line in listed if "statistic" in line)
        return total

    def lossless(self, role: str) -> None:
        """Undo :meth:`lossy`."""
        for tool in ("iptables", "ip6tables"):
            self.exec(role, tool, "-F", "OUTPUT")

    def restart_router(self, home: str) -> None:
        """Restart the home's router as a reboot would: its miniupnpd stopped, the chains it
        keeps its mappings in and every tracked connection (the NAT's state) flushed, then
        miniupnpd started afresh, knowing no mapping (and, with ``system_uptime=no``, a new
        NAT-PMP/PCP epoch, as after a reboot)."""
        daemon = self.daemons.pop(home)
        daemon.terminate()
        try:
            daemon.wait(5)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait(5)
        for chain in ("miniupnpd", "prerouting_miniupnpd", "postrouting_miniupnpd"):
            self.exec(f"r{home}", "nft", "flush", "chain", "inet", "filter", chain)
        # a rebooted router knows no connection, and takes up none met in the middle (the kernel's
        # default would quietly adopt the next packet of one, as no rebooted router does)
        self._sysctl(f"r{home}", "net.netfilter.nf_conntrack_tcp_loose=0")
        self.exec(f"r{home}", "conntrack", "-F", check=False)  # "0 flow entries" is exit status 0 or 1
        self._start_miniupnpd(home, self.homes[home])

    def mappings(self, home: str) -> str:
        """The forwarding rules the home's miniupnpd holds right now (its nftables chains), as text."""
        return self.exec(f"r{home}", "nft", "list", "chain", "inet", "filter", "prerouting_miniupnpd").stdout

    def hosts_file(self, role: str, text: str) -> None:
        """``/etc/hosts`` as seen by processes run in ``role`` (``ip netns exec`` binds /etc/netns/NS/hosts)."""
        folder = Path("/etc/netns") / self.ns(role)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "hosts").write_text(text)

    def trumps(
        self,
        role: str,
        home: Path,
        *args: str,
        hostname: str | None = None,
        entry: tuple[str, ...] = ("-m", "cli"),
        stdin: bool = False,
    ) -> Program:
        """``trumps ARGS`` in ``role``'s namespace with its own data folder ``home``; optionally its
        own host name (a UTS namespace of its own), another entry point than ``python -m cli``,
        and a pipe to its stdin (:meth:`Program.type`)."""
        env = os.environ | {"XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data"),
                            "LANG": "C.UTF-8", "PYTHONPATH": str(REPO)}  # fmt: skip
        for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
            env.pop(name, None)
        argv = ["ip", "netns", "exec", self.ns(role)]
        if hostname is not None:
            argv += ["unshare", "--uts", "sh", "-c", f'hostname {hostname} && exec "$@"', "sh"]
        process = subprocess.Popen(
            [*argv, sys.executable, *entry, *args], stdin=subprocess.PIPE if stdin else None,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO,
        )  # fmt: skip
        return Program(process)

    def close(self) -> None:
        """Stop the daemons, delete the namespaces and files; safe to call twice."""
        for daemon in self.daemons.values():
            if daemon.poll() is None:
                daemon.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    daemon.wait(5)
            if daemon.poll() is None:
                daemon.kill()
                daemon.wait(5)
        self.daemons.clear()
        for name in reversed(self.namespaces):
            _run("ip", "netns", "del", name, check=False)
            shutil.rmtree(Path("/etc/netns") / name, ignore_errors=True)
        self.namespaces.clear()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Lab:
        return self.build()

    def __exit__(self, *exc: object) -> None:
        self.close()


class Program:
    """A ``trumps`` process: its invite line, its JSON summary and its stderr, every wait bounded."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.first_line = ""
        self.started = time.monotonic()
        self.first_line_s = 0.0

    def invite(self, limit: float = 20.0) -> str:
        """The invite the host printed on its first line (``HOST:PORT/FINGERPRINT``)."""
        assert self.process.stdout is not None
        timer = threading.Timer(limit, self.process.kill)
        timer.start()
        try:
            self.first_line = self.process.stdout.readline()
        finally:
            timer.cancel()
        self.first_line_s = time.monotonic() - self.started
        if "trumps join " not in self.first_line:
            raise RuntimeError(f"no invite: {self.first_line!r} {self.finish(5)[1][-1500:]}")
        return self.first_line.split("trumps join ", 1)[1].strip()

    def type(self, text: str) -> None:
        """Send ``text`` to its stdin and close it (the end of its input)."""
        assert self.process.stdin is not None
        self.process.stdin.write(text)
        self.process.stdin.close()
        self.process.stdin = None  # communicate() must not flush it again

    def wait_for(self, words: str, limit: float = 30.0) -> list[str]:
        """Its stderr lines up to the first containing ``words`` (killed after ``limit`` seconds)."""
        assert self.process.stderr is not None
        timer = threading.Timer(limit, self.process.kill)
        timer.start()
        lines: list[str] = []
        try:
            while not lines or words not in lines[-1]:
                line = self.process.stderr.readline()
                if not line:
                    raise RuntimeError(f"no {words!r} in {''.join(lines)[-1500:]!r}")
                lines.append(line)
        finally:
            timer.cancel()
        return lines

    def finish(self, limit: float = 60.0) -> tuple[dict[str, object], str]:
        """Wait for the end: the last JSON line of stdout (or ``{}``) and all of stderr."""
        try:
            out, err = self.process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate(timeout=10)
            err += f"\n(killed after {limit} s)"
        lines = [line for line in out.splitlines() if line.startswith("{")]
        return (json.loads(lines[-1]) if lines else {}), err

    def stop(self) -> None:
        """End it if still running (SIGTERM, then SIGKILL)."""
        if self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(5)
        if self.process.poll() is None:
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired, ValueError):
            self.process.communicate(timeout=5)
