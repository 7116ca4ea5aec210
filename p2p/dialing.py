"""When to dial each address of an invite, sans I/O: the joiner's first connection and its way back.

An invite lists several addresses (the router's public one, the host's LAN ones, IPv6),
and from where the joiner is, some lead nowhere: a LAN address seen from the internet
is a black hole. So each address has a schedule of its own (a *line*), fed what each
attempt came to and the time; one address never waits for another. The first round
starts them :data:`STAGGER` apart (RFC 8305), or at once when the one before failed.
After a failure the line waits, doubling from ``first_delay``: up to ``fast_max``
seconds for an address that led to the host before, or where something answered
(a refused connection: the host's machine or its router is there, the program may be
restarting), and up to ``slow_max`` for an address where nothing answered. A host
restarted with ``kill -9`` is thus found again within about ``fast_max`` seconds of
listening, whatever its black-hole addresses do.

>>> public, lan = ("11.0.0.1", 47111), ("10.1.0.10", 47111)
>>> plan = DialPlan((lan, public), answered={public}, jitter=lambda: 1.0)
>>> plan.start(0.0)
>>> plan.due(0.0)           # the address that led to the host comes first
[('11.0.0.1', 47111)]
>>> plan.wake_at()
0.25
>>> plan.failed(public, 0.1, Outcome.REFUSED)
>>> plan.due(0.1)           # the next line starts at once when one fails
[('10.1.0.10', 47111)]
>>> plan.wake_at()          # 0.25 s after the refusal, while the LAN line is still dialing
0.35
>>> for t in (0.35, 0.85, 1.85):
...     _ = plan.due(t)
...     plan.failed(public, t, Outcome.REFUSED)
>>> plan.wake_at()          # never more than FAST_MAX apart
2.85
>>> str(plan.trouble("ann"))
"11.0.0.1:47111 refuses connections (ann's program is not listening, or a router on the way no longer forwards that port)"
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from p2p.addresses import address_text
from p2p.text import N_, Text

Address = tuple[str, int]

STAGGER = 0.25
"""Seconds between starting to dial one address of an invite and the next (RFC 8305's 250 ms)."""
FIRST_DELAY = 0.25
"""Seconds a line waits after its first failure; each further failure doubles it."""
FAST_MAX = 1.0
"""The longest wait on an address that led to the host, or where something answered."""
SLOW_MAX = 15.0
"""The longest wait on an address where nothing answered (a black hole, no route)."""


class Outcome(enum.Enum):
    """What a failed attempt on one address came to."""

    REFUSED = "refused"
    """Something at that address said no such port (a TCP reset): the machine or a router is there."""
    UNREACHABLE = "unreachable"
    """The network said there is no way there (no route, host unreachable, a name that does not resolve)."""
    SILENT = "silent"
    """Nothing answered within the connect timeout: a black hole, or a line losing everything."""
    SPOKE = "spoke"
    """The connection opened, but the handshake did not complete (the host pausing, a forged refusal…)."""


def _jitter() -> float:
    return random.uniform(0.8, 1.2)  # spreads retries; not a secret


@dataclass
class _Line:
    """One address's schedule: when it is due (``None``: being dialed, or done), its failures."""

    due: float | None
    failures: int = 0
    last: Outcome | None = None
    detail: str = ""
    dialed: bool = False


class DialPlan:
    """The schedule of every address of an invite: :meth:`start` a round, then :meth:`due` tells
    which to dial now, :meth:`wake_at` when to look again, and :meth:`failed` / :meth:`succeeded`
    take what an attempt came to. ``once``: each address is dialed once (the first connection,
    where a person waits for the answer); otherwise lines are dialed again until the caller stops.
    ``answered``: the addresses that led to the host before (kept up to date by :meth:`succeeded`).
    """

    def __init__(
        self,
        addresses: Iterable[Address],
        answered: Collection[Address] = (),
        *,
        once: bool = False,
        first_delay: float = FIRST_DELAY,
        fast_max: float = FAST_MAX,
        slow_max: float = SLOW_MAX,
        stagger: float = STAGGER,
        jitter: Callable[[], float] = _jitter,
    ) -> None:
        self.addresses = tuple(dict.fromkeys(addresses))
        self.answered = set(answered)
        self.once, self.first_delay, self.fast_max, self.slow_max = once, first_delay, fast_max, slow_max
        self.stagger, self.jitter = stagger, jitter
        self._lines: dict[Address, _Line] = {}

    def start(self, now: float) -> None:
        """A new round: the addresses that led to the host first, the others in the invite's order,
        :attr:`stagger` seconds apart; what earlier rounds met is forgotten."""
        order = sorted(self.addresses, key=lambda address: address not in self.answered)
        self._lines = {address: _Line(now + n * self.stagger) for n, address in enumerate(order)}

    def due(self, now: float) -> list[Address]:
        """The addresses to dial now (each is then being dialed until :meth:`failed` or :meth:`succeeded`)."""
        ready = [a for a, line in self._lines.items() if line.due is not None and line.due <= now]
        for address in ready:
            line = self._lines[address]
            line.due, line.dialed = None, True
        return ready

    def wake_at(self) -> float | None:
        """When the next address is due, or ``None`` while every line is being dialed or done."""
        times = [line.due for line in self._lines.values() if line.due is not None]
        return min(times, default=None)

    @property
    def exhausted(self) -> bool:
        """Whether a round of :attr:`once` is over: every address was dialed and failed."""
        return all(line.due is None and line.last is not None for line in self._lines.values())

    def failed(self, address: Address, now: float, outcome: Outcome, detail: str = "") -> None:
        """An attempt on ``address`` failed at ``now`` with ``outcome`` (``detail``: the error, for
        :meth:`trouble`); the line waits its delay, and the addresses not yet dialed go on from now."""
        line = self._lines[address]
        line.failures, line.last, line.detail, line.dialed = line.failures + 1, outcome, detail, True
        if not self.once:
            fast = address in self.answered or outcome in (Outcome.REFUSED, Outcome.SPOKE)
            cap = self.fast_max if fast else self.slow_max
            line.due = now + min(self.first_delay * 2 ** (line.failures - 1), cap) * self.jitter()
        waiting = sorted(
            (other for other in self._lines.values() if not other.dialed and other.due is not None),
            key=lambda other: other.due or 0.0,
        )
        for n, other in enumerate(waiting):  # the round goes on from now
            other.due = min(other.due or now, now + n * self.stagger)

    def succeeded(self, address: Address) -> None:
        """``address`` led to the host (its offer came): from now on it is dialed first and most often."""
        self.answered.add(address)

    def trouble(self, host_name: str) -> Text | None:
        """Why the host cannot be reached, in a sentence: what the address that led to it before
        (else the most telling one) met last; ``None`` before any failure."""
        failed = [(a, line) for a, line in self._lines.items() if line.last is not None]
        if not failed:
            return None
        rank = {Outcome.SPOKE: 0, Outcome.REFUSED: 1, Outcome.UNREACHABLE: 2, Outcome.SILENT: 3}
        address, line = min(
            failed, key=lambda item: (item[0] not in self.answered, rank[item[1].last or Outcome.SILENT])
        )
        where = address_text(*address)
        if line.last is Outcome.REFUSED:
            template = N_(
                "{address} refuses connections ({name}'s program is not listening, or a router on "
                "the way no longer forwards that port)"
            )
            return Text(template, address=where, name=host_name)
        if line.last is Outcome.SPOKE:
            template = N_("{address} answered, but the handshake did not complete ({error})")
            return Text(template, address=where, error=line.detail)
        if line.last is Outcome.UNREACHABLE:
            return Text(N_("no route to {address} ({error})"), address=where, error=line.detail)
        return Text(N_("no answer from {address}"), address=where)
