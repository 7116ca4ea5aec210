"""Handshakes without I/O for the tests: the machines of :mod:`p2p.handshake` fed each other's
output in memory (their frames turned to bytes and read back through each side's
:class:`~p2p.channel.Codec`), so that a test needing a session or a sealed line opens no socket
and runs no event loop.

>>> from tests.support.handshakes import identity, session_pair
>>> pair = session_pair(identity(), identity())
>>> pair.host.session_id == pair.joiner.session_id and pair.host.code == pair.joiner.code
True
>>> (pair.host.seat, pair.joiner.seat), pair.host.names
((0, 1), ('ann', 'bob'))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine import Rules
from p2p.channel import Channel, Codec
from p2p.handshake import Action, HostHandshake, JoinerHandshake, Remember, Seal, Send, Session, Terms
from p2p.identity import Identity, KnownPeers, Peers
from p2p.invite import new_secret
from p2p.messages import Message
from tests.support.lines import Meddler, memory_streams


def identity() -> Identity:
    """A fresh identity, kept in no file."""
    return Identity.from_key(Ed25519PrivateKey.generate())


def sent(actions: Sequence[object]) -> list[Message]:
    """The messages a machine's actions send, in order (its seals and remembers left out)."""
    return [action.message for action in actions if isinstance(action, Send)]


@dataclass
class SessionPair:
    """Both sides of a completed handshake: each one's session and codec (sealed, its counters
    past the handshake, as its driver would leave them) and whom each side was told to remember."""

    host: Session
    joiner: Session
    host_codec: Codec
    join_codec: Codec
    host_remembered: list[Remember] = field(default_factory=list)
    join_remembered: list[Remember] = field(default_factory=list)

    def channels(self, meddle: Meddler | None = None) -> tuple[Channel, Channel]:
        """The host's and the joiner's channels, joined by memory and carrying on from the
        handshake (call it inside the event loop that will use them); ``meddle`` rewrites what the
        joiner sends."""
        host_end, join_end = memory_streams(meddle)
        return Channel(*host_end, codec=self.host_codec), Channel(*join_end, codec=self.join_codec)


class _Side:
    """One side's codec, and what its machine's actions did: the driver of :func:`session_pair`."""

    def __init__(self, known: KnownPeers | None) -> None:
        self.codec = Codec()
        self.known = known
        self.remembered: list[Remember] = []

    def perform(self, actions: Sequence[Action], peer: _Side) -> None:
        """Carry out ``actions`` as :func:`p2p.reception.perform` does, the frames going to ``peer``."""
        for action in actions:
            if isinstance(action, Seal):
                self.codec.seal(action.send_key, action.recv_key)
            elif isinstance(action, Send):
                peer.codec.receive_data(self.codec.frame_of(action.message))
            else:
                self.remembered.append(action)
                if self.known is not None:
                    self.known.remember(action.name, action.key)

    def take(self) -> Message:
        """The next message the peer sent (it sent it whole)."""
        message = self.codec.next_message()
        assert message is not None, "the peer's message did not arrive whole"
        return message


def session_pair(
    host: Identity,
    joiner: Identity,
    terms: Terms | None = None,
    names: tuple[str, str] = ("ann", "bob"),
    known: tuple[KnownPeers | None, KnownPeers | None] = (None, None),
    invited: str | None = None,
) -> SessionPair:
    """A whole handshake between ``host`` and ``joiner`` (named ``names``) over ``terms``, with
    an invite secret of its own: each machine's output framed, sealed and read back by the other
    side's codec, in the order the drivers carry them out. ``known``: the host's and the
    joiner's known peers, which each remembers the other in (and the joiner checks the host
    against) as the drivers do; ``None`` keeps nothing. ``invited``: the host's fingerprint as the
    joiner's invite gives it (the host's own unless said). Raises what a machine refuses with."""
    secret = new_secret()
    host_known, join_known = known
    host_machine = HostHandshake(host, names[0], terms or Terms(Rules(), 1), secret)
    join_machine = JoinerHandshake(
        joiner, names[1], invited or host.fingerprint, secret, join_known.peers() if join_known else Peers()
    )
    hosting, joining = _Side(host_known), _Side(join_known)
    joining.perform(join_machine.start(), hosting)
    hosting.perform(host_machine.receive(hosting.take()), joining)  # the hello: no answer
    hosting.perform(host_machine.receive(hosting.take()), joining)  # the knock: the offer
    join_machine.offered(joining.take())
    joining.perform(join_machine.accept(), hosting)
    hosting.perform(host_machine.receive(hosting.take()), joining)  # the accept: the host seals
    hosting.perform(host_machine.receive(hosting.take()), joining)  # the confirm: the session
    hosting.perform(host_machine.admit(), joining)
    joining.perform(join_machine.confirmed(joining.take()), hosting)
    assert host_machine.session is not None and join_machine.session is not None
    return SessionPair(
        host_machine.session, join_machine.session, hosting.codec, joining.codec,
        hosting.remembered, joining.remembered,
    )  # fmt: skip
