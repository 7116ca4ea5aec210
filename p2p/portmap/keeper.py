"""When to ask the router again about a port mapping it granted, sans I/O, and what to say then.

A router forgets its mappings when it restarts, and nothing tells the host: its
joiner, who needs a new connection then, gets in only through the mapping. So the
host looks every :data:`CHECK_EVERY` seconds (UPnP is asked whether it still holds
the mapping; NAT-PMP and PCP, which cannot be asked without renewing, are renewed),
renews at half the lease's lifetime at the latest (RFC 6886 §3.3's advice), and
asks again at once when its joiner is lost;
while that joiner is away, failures are retried soon (from 1 s, doubling to
:data:`LOST_RETRY_MAX`). What the answers show is worded for the host's person: the
router had forgotten the mapping (UPnP says so, NAT-PMP and PCP by an epoch that
went back), it opens the port again, it no longer does, or the address or port
the invite names has changed.

>>> from ipaddress import ip_address
>>> lease = Lease("UPnP", ip_address("11.0.0.1"), 47111, 47111, 1200)
>>> keeper = LeaseKeeper(lease, now=0.0)
>>> keeper.next_at, keeper.renewing(10.0)   # looked at every 10 s, renewed by half the lease
(10.0, False)
>>> keeper.lost(now=5.0)                # the joiner is lost: ask at once
>>> keeper.next_at, keeper.renewing(5.0)
(5.0, True)
>>> str(keeper.granted(5.1, Lease("UPnP", ip_address("11.0.0.1"), 47111, 47111, 1200, held=False)))
'Your router had lost port 47111 (did it restart?): it is open again (UPnP).'
"""

from __future__ import annotations

from p2p.addresses import address_text
from p2p.portmap.errors import PortMapError
from p2p.portmap.mappers import Lease
from p2p.text import N_, Text

CHECK_EVERY = 10.0
"""Seconds between two looks at a mapping while hosting: a router restart is found within them,
well within the time a joiner may be away (the duel's 20 s before a line is presumed dead)."""
LOST_RETRY_FIRST = 1.0
LOST_RETRY_MAX = 15.0
"""While the joiner is lost, a router that does not open the port again is asked from 1 s after
the failure, the wait doubling up to this."""
RETRY_AFTER_FAILED_RENEWAL = 30.0
"""Otherwise, a failed renewal is tried again this soon at the latest (sooner for short leases)."""


def epoch_went_back(before: int, asked_at: float, epoch: int, now: float) -> bool:
    """Whether a router's epoch (seconds since it started) of ``epoch`` at ``now``, after
    ``before`` at ``asked_at``, shows that it restarted meanwhile: RFC 6886 §3.6 (and RFC 6887
    §8.5), allowing its clock 1/8 slower than ours and 2 s of rounding.

    >>> epoch_went_back(4000, 0.0, 4060, 60.0), epoch_went_back(4000, 0.0, 3, 60.0)
    (False, True)
    """
    return epoch + 2 < before + (now - asked_at) * 7 / 8


class LeaseKeeper:
    """The schedule and the news of one lease: :attr:`next_at` says when to ask the router
    again (the caller renews it then with the lease's external port); :meth:`granted` and
    :meth:`failed` take the answer and return a sentence for the host's person, or ``None``."""

    def __init__(self, lease: Lease, now: float, check_every: float = CHECK_EVERY) -> None:
        self.lease, self.granted_at, self.check_every = lease, now, check_every
        self.failures = 0
        self.urgent = False
        """Whether the joiner is lost: then the router is asked soon until it opens the port again."""
        self._failing_said = False
        self.next_at = self._after_grant(now)

    def _after_grant(self, now: float) -> float:
        return min(now + self.check_every, self._renew_at())

    def _renew_at(self) -> float:
        lifetime = self.lease.lifetime
        return self.granted_at + lifetime / 2 if lifetime else float("inf")

    def renewing(self, now: float) -> bool:
        """Whether the look due at ``now`` must renew the lease (asked for again), not only ask
        whether the router holds it: at half its lifetime, and while the joiner is lost."""
        return self.urgent or now >= self._renew_at()

    def held(self, now: float) -> None:
        """The router said it holds the lease still: the next look."""
        self.next_at = self._after_grant(now)

    def lost(self, now: float) -> None:
        """The joiner's connection was lost: ask the router at once, and soon until it answers."""
        self.urgent = True
        self.next_at = min(self.next_at, now)

    def granted(self, now: float, lease: Lease) -> Text | None:
        """The router (re)granted ``lease`` at ``now``: the next look, and what to say about it."""
        before, asked_at = self.lease, self.granted_at
        forgot = lease.held is False or (
            before.epoch is not None
            and lease.epoch is not None
            and epoch_went_back(before.epoch, asked_at, lease.epoch, now)
        )
        said_failing = self._failing_said
        self.lease, self.granted_at, self.failures, self.urgent, self._failing_said = (
            lease,
            now,
            0,
            False,
            False,
        )
        self.next_at = self._after_grant(now)
        moved = (lease.external_address, lease.external_port) != (
            before.external_address,
            before.external_port,
        )
        if moved:
            template = N_(
                "Your router now forwards {address} to this machine (it was {old}): the invite your "
                "friend has no longer leads here."
            )
            return Text(
                template,
                address=address_text(str(lease.external_address), lease.external_port),
                old=address_text(str(before.external_address), before.external_port),
            )
        if forgot:
            template = N_("Your router had lost port {port} (did it restart?): it is open again ({method}).")
            return Text(template, port=lease.external_port, method=lease.method)
        if said_failing:
            return Text(
                N_("Your router opened port {port} again ({method})."),
                port=lease.external_port,
                method=lease.method,
            )
        return None

    def failed(self, now: float, error: PortMapError) -> Text | None:
        """Asking again failed at ``now``: when to try next, and (once in a row, while the joiner
        is lost) what to say."""
        self.failures += 1
        if self.urgent:
            wait = min(LOST_RETRY_FIRST * 2 ** (self.failures - 1), LOST_RETRY_MAX)
        else:
            wait = min(RETRY_AFTER_FAILED_RENEWAL, max(self.lease.lifetime / 4, 1.0), self.check_every)
        self.next_at = now + wait
        if not self.urgent or self._failing_said:
            return None
        self._failing_said = True
        template = N_(
            "Your router does not open port {port} again ({error}): your friend cannot get back in "
            "until it does. Asking again…"
        )
        return Text(template, port=self.lease.external_port, error=error)
