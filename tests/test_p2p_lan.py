"""The LAN knock (a joiner that found the host by discovery and has no invite secret), attacked:
a bot host or a host that does not announce gives it the stranger's refusal, the host's person
decides after key confirmation, a declined source is not asked again, a flood of LAN strangers
costs the person a bounded number of questions, one at a time, and a relay cannot grind the code."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine import Rules
from p2p.admission import MAX_LAN_OFFERS, MAX_QUESTIONS, Approvals
from p2p.channel import Channel
from p2p.connect import Listener, join, join_on, listening_socket
from p2p.errors import (
    BadHandshakeSignature,
    ConnectionClosed,
    HandshakeError,
    InviteRefused,
    P2PError,
    PeerAborted,
    PeerBusy,
)
from p2p.handshake import (
    LAN_SECRET,
    HostHandshake,
    JoinerHandshake,
    Send,
    Session,
    Terms,
)
from p2p.identity import Peers
from p2p.invite import Invite, new_secret
from p2p.messages import (
    Abort,
    Confirm,
    Message,
    Offer,
)
from p2p.reception import Reception, perform
from p2p.wire import encode
from tests.support.handshakes import identity, sent
from tests.support.peers import Side, accept_all, memory_connection, reception_of, run

TERMS = Terms(Rules(), 2)


class Lan:
    """A host machine (announcing or not) and a joiner machine knocking with ``secret``."""

    def __init__(self, tmp_path: Path, lan: bool, secret: bytes = LAN_SECRET) -> None:
        self.invite_secret = new_secret()
        self.ann = identity()
        self.host = HostHandshake(self.ann, "ann", TERMS, self.invite_secret, lan=lan)
        self.joiner = JoinerHandshake(identity(), "bob", self.ann.fingerprint, secret, Peers())

    def to_offer(self) -> Offer:
        out = [message for opening in sent(self.joiner.start()) for message in sent(self.host.receive(opening))]
        assert len(out) == 1 and isinstance(out[0], Offer)
        return out[0]

    def to_confirm(self) -> list[Message]:
        self.joiner.offered(self.to_offer())
        return sent(self.joiner.accept())


def _stranger_refusal(tmp_path: Path) -> object:
    pair = Lan(tmp_path, lan=True, secret=new_secret())  # a wrong secret, even to an announcing host
    with pytest.raises(InviteRefused):
        pair.to_offer()
    return pair.host.refusal


@pytest.mark.parametrize("who", ["a bot host", "a host with --no-announce"])
def test_a_host_not_asking_its_person_gives_a_lan_knock_the_strangers_refusal(
    tmp_path: Path, who: str
) -> None:
    pair = Lan(tmp_path, lan=False)
    with pytest.raises(InviteRefused):
        pair.to_offer()
    assert pair.host.refusal == _stranger_refusal(tmp_path) and pair.host.offer is None


def test_an_announcing_host_takes_a_lan_knock_unproven_and_both_get_the_code(tmp_path: Path) -> None:
    pair = Lan(tmp_path, lan=True)
    for message in pair.to_confirm():
        pair.host.receive(message)
    assert pair.host.session is not None
    assert pair.host.lan_knock and not pair.host.proven  # evictable, and it needs the person's yes
    assert pair.joiner.lan and pair.joiner.code == pair.host.session.code  # compared before the yes
    (confirmed,) = sent(pair.host.admit())
    pair.joiner.confirmed(confirmed)
    assert pair.joiner.session is not None and pair.joiner.session.code == pair.host.session.code


def test_an_invite_join_to_an_announcing_host_is_still_proven(tmp_path: Path) -> None:
    pair = Lan(tmp_path, lan=True)
    pair.joiner = JoinerHandshake(
        identity(), "bob", pair.ann.fingerprint, pair.invite_secret, Peers()
    )
    pair.to_offer()
    assert pair.host.proven and not pair.host.lan_knock and not pair.joiner.lan


def test_a_lan_joiner_cannot_reveal_another_nonce_than_it_committed(tmp_path: Path) -> None:
    """The code stays ungrindable with the public secret: the nonce is bound by the knock's commit."""
    pair = Lan(tmp_path, lan=True)
    accept, confirm = pair.to_confirm()
    assert isinstance(confirm, Confirm)
    pair.host.receive(accept)
    with pytest.raises(HandshakeError):
        pair.host.receive(Confirm(nonce=bytes(32), mac=confirm.mac))
    assert pair.host.session is None and pair.host.refusal is not None
    assert pair.host.refusal.reason == "confirm"


def test_approvals_ask_one_at_a_time_and_never_again_after_a_no() -> None:
    approvals = Approvals(max_per_source=2, max_questions=4)
    assert approvals.open("10.0.0.5") and not approvals.open("10.0.0.6")  # one question at a time
    approvals.answer("10.0.0.5", accepted=False)
    assert not approvals.welcome("10.0.0.5") and not approvals.open("10.0.0.5")
    assert approvals.open("10.0.0.6")
    approvals.answer("10.0.0.6", accepted=True)
    assert approvals.open("10.0.0.6")
    approvals.answer("10.0.0.6", accepted=True)
    assert not approvals.welcome("10.0.0.6")  # its share is used up
    assert approvals.welcome("10.0.0.7") and approvals.open("10.0.0.7")
    approvals.answer("10.0.0.7", accepted=True)
    assert not approvals.welcome("10.0.0.8")  # four in all: from now on only invites


class Person:
    """The host's person: records each question, answers ``answer`` (after ``release`` when set)."""

    def __init__(self, answer: bool, release: asyncio.Event | None = None) -> None:
        self.answer, self.release = answer, release
        self.asked: list[tuple[str, str, str]] = []
        self.withdrawn = 0

    async def __call__(self, name: str, address: str, code: str) -> bool:
        self.asked.append((name, address, code))
        if self.release is not None:
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.withdrawn += 1
                raise
        return self.answer


def _host(root: Path, person: Person | None) -> tuple[Side, Listener, int]:
    ann = Side.make(root, "ann")
    sock = listening_socket("127.0.0.1", 0)
    return ann, Listener(sock, ann.me, "ann", TERMS, ann.known, approve=person), sock.getsockname()[1]


def _lan_invite(ann: Side, port: int) -> Invite:
    return Invite((("127.0.0.1", port),), ann.me.fingerprint, LAN_SECRET)


@pytest.mark.net
def test_an_approved_lan_joiner_plays_after_comparing_the_code(tmp_path: Path) -> None:
    bob = Side.make(tmp_path, "bob")
    person = Person(answer=True)
    shown: list[str] = []

    async def scenario() -> tuple[Session, Session]:
        ann, listener, port = _host(tmp_path, person)
        async with listener:
            channel, session = await join(
                _lan_invite(ann, port), bob.me, "bob", bob.known, accept_all, asked=shown.append
            )
            host_channel, host_session = await listener.first()
            await channel.close()
            await host_channel.close()
            return session, host_session

    mine, theirs = run(scenario())
    assert person.asked == [("bob", person.asked[0][1], theirs.code)] and "127.0.0.1" in person.asked[0][1]
    assert shown == [mine.code] and mine.code == theirs.code and mine.session_id == theirs.session_id


async def _lan_join(reception: Reception, ann: Side, side: Side, name: str | None = None) -> Session:
    """``side`` (as ``name``) knocks at ``reception`` over the memory line with the LAN secret, as
    a joiner that found ann on the LAN: its session, or what refused it raised, once the host's
    serving of the connection has ended."""
    serving, channel = memory_connection(reception, lambda address, error: None)
    invite = Invite((("memory", 0),), ann.me.fingerprint, LAN_SECRET)
    try:
        return await join_on(channel, invite, side.me, name or side.name, side.known, accept_all)
    finally:
        await channel.close()
        await asyncio.wait_for(serving, 5)


def test_a_bot_host_refuses_a_lan_joiner_in_words_for_one_who_has_no_invite(tmp_path: Path) -> None:
    """Refused as any stranger is, but told what it is to do: it knocked from the list, never had
    an invite (not "did not prove the invite's secret: ask for a fresh invite")."""
    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")

    async def scenario() -> P2PError:
        with pytest.raises(InviteRefused) as refused:
            await _lan_join(reception_of(ann, new_secret(), TERMS), ann, bob)
        return refused.value

    refusal = str(run(scenario()))
    assert "takes no joiner from your network's list" in refusal and "ask the host for its invite line" in refusal
    assert "secret" not in refusal


def test_a_declined_lan_joiner_is_refused_and_not_asked_about_again(tmp_path: Path) -> None:
    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
    person = Person(answer=False)

    async def scenario() -> tuple[P2PError, P2PError, bool, dict[str, dict[str, str]]]:
        reception = reception_of(ann, new_secret(), TERMS, approve=person)
        with pytest.raises(PeerAborted) as declined:
            await _lan_join(reception, ann, bob)
        with pytest.raises(InviteRefused) as again:
            await _lan_join(reception, ann, bob)
        return declined.value, again.value, reception.playing is None, ann.known.load()

    declined, again, nobody, remembered = run(scenario())
    assert isinstance(declined, PeerAborted) and declined.reason == "declined"
    assert "did not let you in" in str(declined) and "you were turned away before" in str(again)
    assert len(person.asked) == 1 and nobody and "bob" not in remembered  # nothing bound


def test_a_look_alike_lan_joiner_meets_the_known_key_before_the_person_is_asked(tmp_path: Path) -> None:
    ann, bob, eve = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob"), Side.make(tmp_path, "eve")
    person = Person(answer=True)

    async def scenario() -> P2PError:
        ann.known.check("bob", bob.me.public)
        with pytest.raises(PeerAborted) as refused:
            await _lan_join(reception_of(ann, new_secret(), TERMS, approve=person), ann, eve, "b\u043eb")
        return refused.value

    refused = run(scenario())
    assert isinstance(refused, PeerAborted) and refused.reason == "identity" and not person.asked


@pytest.mark.net
def test_a_flood_of_lan_strangers_asks_one_question_at_a_time_and_few_in_all(tmp_path: Path) -> None:
    """LAN strangers from many sources while the person leaves the first question open are told to
    wait; then, each declined at once, they get at most MAX_QUESTIONS questions in all and the rest
    the stranger's refusal; the friend with the invite still gets in."""
    release = asyncio.Event()
    person = Person(answer=False, release=release)
    eve, bob = Side.make(tmp_path, "eve"), Side.make(tmp_path, "bob")

    async def scenario() -> tuple[list[P2PError | None], list[P2PError | None], str]:
        ann, listener, port = _host(tmp_path, person)
        async with listener:
            first = asyncio.ensure_future(_join_from(ann, port, "127.0.0.2", eve))
            await _asked(person)
            waiting = await asyncio.gather(*(_join_from(ann, port, f"127.0.0.{n}", eve) for n in range(3, 9)))
            release.set()
            opening = [await first, *waiting]
            later = [await _join_from(ann, port, f"127.0.0.{n}", eve) for n in range(2, 21)]
            channel, _ = await join(
                listener.invite([("127.0.0.1", port)]), bob.me, "bob", bob.known, accept_all
            )
            host_channel, session = await listener.first()
            await channel.close()
            await host_channel.close()
            return opening, later, session.hello.name

    opening, later, winner = run(scenario())
    assert isinstance(opening[0], PeerAborted) and opening[0].reason == "declined"
    assert all(isinstance(error, PeerBusy) for error in opening[1:])  # one question at a time
    declined = [e for e in later if isinstance(e, PeerAborted) and e.reason == "declined"]
    assert len(person.asked) == 1 + len(declined) == MAX_QUESTIONS
    assert all(isinstance(e, InviteRefused) for e in later if e not in declined)  # 127.0.0.2 too
    assert winner == "bob"


async def _asked(person: Person) -> None:
    """Until the person is asked (bounded: a refusal instead would end the test)."""
    async with asyncio.timeout(30):
        while not person.asked:
            await asyncio.sleep(0.01)


async def _join_from(ann: Side, port: int, source: str, side: Side) -> P2PError | None:
    """A LAN join from another loopback address (127.0.0.0/8 is all this machine's); its error."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    channel = Channel(reader, writer)
    try:
        await join_on(channel, _lan_invite(ann, port), side.me, side.name, side.known, accept_all)
    except P2PError as exc:
        return exc
    finally:
        await channel.close()
    return None


@pytest.mark.net
def test_the_approved_lan_joiner_comes_back_unasked_and_no_other_lan_joiner_gets_in(tmp_path: Path) -> None:
    bob, eve = Side.make(tmp_path, "bob"), Side.make(tmp_path, "eve")
    person = Person(answer=True)

    async def scenario() -> str:
        ann, listener, port = _host(tmp_path, person)
        async with listener:
            channel, _ = await join(_lan_invite(ann, port), bob.me, "bob", bob.known, accept_all)
            host_channel, _ = await listener.first()
            back, _ = await join(_lan_invite(ann, port), bob.me, "bob", bob.known, accept_all)  # after a drop
            returned, session = await listener.reconnect()
            with pytest.raises(ConnectionClosed, match="playing another match"):  # before any rules
                await join(_lan_invite(ann, port), eve.me, "eve", eve.known, accept_all)
            for line in (channel, host_channel, back, returned):
                await line.close()
            return session.hello.name

    assert run(scenario()) == "bob" and [name for name, _, _ in person.asked] == ["bob"]


@pytest.mark.net
def test_once_an_invite_match_is_on_a_lan_knock_gets_the_strangers_refusal(tmp_path: Path) -> None:
    bob, eve = Side.make(tmp_path, "bob"), Side.make(tmp_path, "eve")
    person = Person(answer=True)

    async def scenario() -> P2PError:
        ann, listener, port = _host(tmp_path, person)
        async with listener:
            channel, _ = await join(
                listener.invite([("127.0.0.1", port)]), bob.me, "bob", bob.known, accept_all
            )
            host_channel, _ = await listener.first()
            with pytest.raises(InviteRefused) as refused:
                await join(_lan_invite(ann, port), eve.me, "eve", eve.known, accept_all)
            await channel.close()
            await host_channel.close()
            return refused.value

    assert "a match already on" in str(run(scenario())) and not person.asked


@pytest.mark.net
def test_a_lan_joiner_hanging_up_withdraws_its_question(tmp_path: Path) -> None:
    """Else one stranger who knocks and leaves would hold the one question open for ten minutes."""
    eve, bob = Side.make(tmp_path, "eve"), Side.make(tmp_path, "bob")
    person = Person(answer=True, release=asyncio.Event())

    async def scenario() -> P2PError | None:
        ann, listener, port = _host(tmp_path, person)
        async with listener:
            leaving = asyncio.ensure_future(_join_from(ann, port, "127.0.0.2", eve))
            await _asked(person)
            leaving.cancel()
            async with asyncio.timeout(30):  # the question is withdrawn at once, not after ten minutes
                while not person.withdrawn:
                    await asyncio.sleep(0.01)
            person.release = None  # the person answers the next question at once
            return await _join_from(ann, port, "127.0.0.3", bob)

    assert run(scenario()) is None and [name for name, _, _ in person.asked] == ["eve", "bob"]


def test_the_lan_knock_is_the_documents_formulas_with_the_empty_secret(tmp_path: Path) -> None:
    """docs/protocol.md, "The LAN knock": the proof is HMAC-SHA256 under a zero-length key and the
    code is read from H("code", "", T1, nonce), the empty field with its length 0 (hashlib only)."""
    import hashlib
    import hmac


    def h(tag: str, *parts: bytes) -> bytes:
        digest = hashlib.sha256()
        for part in (("your-trumps/v1/" + tag).encode(), *parts):
            digest.update(len(part).to_bytes(4, "big") + part)
        return digest.digest()

    pair = Lan(tmp_path, lan=True)
    offer = pair.to_offer()
    hello, knock = pair.joiner.hello, pair.joiner.knock
    pair.joiner.offered(offer)
    accept, confirm = sent(pair.joiner.accept())
    for message in (accept, confirm):
        pair.host.receive(message)
    assert isinstance(confirm, Confirm) and pair.host.session is not None
    proof = hmac.new(b"", h("knock", encode(hello.to_wire()), h("code-nonce", confirm.nonce)), hashlib.sha256)
    assert knock.proof == proof.digest()
    t1 = h("offer", encode(hello.to_wire()), encode(offer.body()))
    number = int.from_bytes(h("code", b"", t1, confirm.nonce)[:8], "big") % 1_000_000
    assert pair.host.session.code == pair.joiner.code == f"{number // 1000:03d} {number % 1000:03d}"


def test_lan_knocks_leave_nothing_in_the_hosts_replay_set(tmp_path: Path) -> None:
    """Flaw: every LAN knock's ephemeral key went into the listener's set of seen knocks for good,
    so LAN strangers knocking with fresh keys (and never confirming) grew the host's memory without
    bound. Now only knocks under the invite secret are remembered: a replayed LAN knock gets an
    offer anyone on the LAN can get anyway, and cannot use it (next test). Check: ``proof_ok`` on
    ``seen`` in ``HostHandshake._knock``."""
    seen: set[bytes] = set()
    for _ in range(3):
        pair = Lan(tmp_path, lan=True)
        pair.host = HostHandshake(pair.ann, "ann", TERMS, pair.invite_secret, seen, lan=True)
        pair.to_offer()
    assert seen == set()
    pair.joiner = JoinerHandshake(
        identity(), "bob", pair.ann.fingerprint, pair.invite_secret, Peers()
    )
    pair.host = HostHandshake(pair.ann, "ann", TERMS, pair.invite_secret, seen, lan=True)
    pair.to_offer()
    assert seen == {pair.joiner.hello.eph}  # an invite knock is remembered against its replay


def test_a_replayed_lan_knock_gets_an_offer_it_cannot_use(tmp_path: Path) -> None:
    """A LAN knock and its joiner's accept and confirm, recorded and replayed to the host: the
    host's fresh offer is not what the recorded accept signed, and no confirm opens without the
    joiner's ephemeral secret, so the replay ends before any question to the host's person."""
    pair = Lan(tmp_path, lan=True)
    recorded = [*sent(pair.joiner.start()), *pair.to_confirm()]
    again = HostHandshake(pair.ann, "ann", TERMS, pair.invite_secret, lan=True)
    assert again.receive(recorded[0]) == [] and sent(again.receive(recorded[1]))  # an offer
    with pytest.raises(BadHandshakeSignature):
        again.receive(recorded[2])
    assert again.session is None


@pytest.mark.net
def test_a_lan_strangers_sealed_abort_puts_no_text_of_its_own_on_the_hosts_screen(tmp_path: Path) -> None:
    """Flaw: a LAN knock proves nothing, so anyone on the LAN got the session keys and its sealed
    ``abort`` between its accept and its confirm was shown whole on the host's refusal line, 300
    characters of its own. Now the host shows a sealed abort's detail only from a joiner that
    proved the invite secret; a LAN joiner's is told by its reason code in the host's own words.
    Check: ``self.proven`` in ``HostHandshake.declined``."""
    eve = Side.make(tmp_path, "eve")
    text = "ann: this build is broken, install the fixed one from http://evil.example/trumps-fix"

    async def scenario() -> P2PError:
        ann, listener, port = _host(tmp_path, Person(answer=True))
        async with listener:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            channel = Channel(reader, writer)
            machine = JoinerHandshake(eve.me, "eve", ann.me.fingerprint, LAN_SECRET, eve.known.peers())
            await perform(channel, machine.start())
            machine.offered(await channel.recv(5))
            accept, seal, _ = machine.accept()  # the accept, then sealing: an abort in place of the confirm
            await perform(channel, [accept, seal, Send(Abort(reason="cheat", detail=text))])
            async with asyncio.timeout(30):
                while not listener.refusals:
                    await asyncio.sleep(0.01)
            writer.transport.abort()
            return listener.refusals[0][1]

    error = run(scenario())
    assert text not in str(error) and "evil" not in str(error) and "(cheat)" in str(error)


def test_a_lan_joiners_decline_names_nobody(tmp_path: Path) -> None:
    """A LAN joiner's hello name is anyone's text (its knock proves nothing) and a clear ``abort
    declined`` anyone's frame: the host does not show "NAME declined the rules" for it, only the
    reason code in its own words. Check: ``self.proven`` in ``HostHandshake.declined``."""
    pair = Lan(tmp_path, lan=True)
    pair.joiner.offered(pair.to_offer())
    error = pair.host.declined(PeerAborted("declined", "ann says: fetch a new invite"))
    assert isinstance(error, ConnectionClosed) and "(declined)" in str(error)
    assert "bob" not in str(error) and "ann says" not in str(error)


async def _reading_the_rules(ann: Side, port: int, source: str, side: Side) -> Channel:
    """A LAN joiner from ``source`` that got the host's offer and is reading the rules."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    channel = Channel(reader, writer)
    machine = JoinerHandshake(side.me, side.name, ann.me.fingerprint, LAN_SECRET, side.known.peers())
    await perform(channel, machine.start())
    machine.offered(await channel.recv(5))
    return channel


@pytest.mark.net
def test_a_lan_knock_beyond_the_pending_bounds_is_closed_with_no_answer(tmp_path: Path) -> None:
    """docs/protocol.md, "Checks, in order" (2b): a fifth pending handshake from one source gets
    no offer and no ``abort``, only a closed connection, and so does a pending one dropped to make
    room for a newer one (16 pending at most)."""
    eve = Side.make(tmp_path, "eve")

    async def scenario() -> tuple[P2PError | None, P2PError]:
        ann, listener, port = _host(tmp_path, Person(answer=True))
        async with listener:
            held = [await _reading_the_rules(ann, port, "127.0.0.5", eve) for _ in range(4)]
            fifth = await _join_from(ann, port, "127.0.0.5", eve)
            held += [await _reading_the_rules(ann, port, f"127.0.1.{n}", eve) for n in range(1, 13)]
            held.append(await _reading_the_rules(ann, port, "127.0.2.1", eve))  # the 17th pending
            with pytest.raises(P2PError) as dropped:
                await held[4].recv(5)  # 127.0.1.1's: the oldest of the network holding the most
            for channel in held:
                channel.abort()
            return fifth, dropped.value

    fifth, dropped = run(scenario())
    assert isinstance(fifth, ConnectionClosed) and isinstance(dropped, ConnectionClosed)


@pytest.mark.net
def test_strangers_using_up_the_hosts_questions_cannot_keep_its_lan_joiner_from_coming_back(
    tmp_path: Path,
) -> None:
    """Attack: before the friend joins from the LAN list, a stranger knocks from seven addresses
    (and is told no, or hangs up: the same), so that the friend's question is the host's eighth
    and last. The friend plays; at the first cut its return was refused like any stranger's
    (``welcome`` counted the questions used up), so the match could not resume and the host was
    awarded the friend's absence. The LAN joiner's own return is taken whatever the questions
    ("The LAN knock": "then only the LAN joiner's own return")."""
    from p2p.admission import MAX_QUESTIONS
    from tests.test_p2p_lan import _join_from, _lan_invite

    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")

    async def approve(name: str, address: str, code: str) -> bool:
        return name == "bob"

    async def scenario() -> str:
        sock = listening_socket("127.0.0.1", 0)
        port = sock.getsockname()[1]
        async with Listener(sock, ann.me, "ann", Terms(Rules(), 1), ann.known, approve=approve) as listener:
            for number in range(2, MAX_QUESTIONS + 1):  # seven strangers' questions, each a no
                eve = Side.make(tmp_path, f"eve{number}")
                assert isinstance(await _join_from(ann, port, f"127.0.0.{number}", eve), P2PError)
            channel, _ = await join(_lan_invite(ann, port), bob.me, "bob", bob.known, accept_all)
            host_channel, _ = await listener.first()
            await channel.close()  # the line drops; bob comes back
            back, _ = await asyncio.wait_for(
                join(_lan_invite(ann, port), bob.me, "bob", bob.known, accept_all), 10
            )
            returned, session = await asyncio.wait_for(listener.reconnect(), 10)
            for line in (host_channel, back, returned):
                await line.close()
            return session.hello.name

    assert run(scenario()) == "bob"


async def _never_asked(name: str, address: str, code: str) -> bool:
    raise AssertionError("the attacker never confirms, so the host's person is never asked")


async def _code_of_one_offer(port: int, source: str, mallory: Side, fingerprint: str) -> str | None:
    """Mallory knocks with the empty secret, reads the host's offer and works out the code the
    host's screen would show for this session, alone: the secret is public and the nonce its own.
    It sends nothing more and hangs up; ``None`` if the host gave it no offer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    channel = Channel(reader, writer)
    machine = JoinerHandshake(mallory.me, "bob", fingerprint, LAN_SECRET, mallory.known.peers())
    try:
        await perform(channel, machine.start())
        offer = await channel.recv(5)
        if not isinstance(offer, Offer):
            return None
        machine.offered(offer)
        machine.accept()  # computed here, none of it sent
        return machine.code
    except P2PError:
        return None
    finally:
        channel.abort()


@pytest.mark.net
def test_a_lan_relay_cannot_grind_the_hosts_code_for_free(tmp_path: Path) -> None:
    """Flaw: docs/protocol.md ("The LAN knock", now docs/protocol-rationale.md) argued that a relay's every retry at matching the
    joiner's code costs one of the host's few questions. But the code of a session is known to its
    joiner as soon as the host's offer is in (the LAN secret is public, the nonce the joiner's own,
    ``T1`` the offer), and the host asks its person only after the joiner confirms. Mallory,
    relaying bob to a fake "ann", knows bob's code once bob confirms; then it knocks at the real
    ann again and again, reading each offer's code and hanging up, until one equals bob's: only
    that session is confirmed and put to ann's person, whose screen then shows bob's code. Nothing
    bounded the tries (each a fresh connection after the last: never more than one pending), so
    about 10⁶ handshakes, minutes of the host's time while bob waits up to 600 s, matched the
    codes. Now each offer to a LAN knock costs one of :data:`MAX_LAN_OFFERS` for the whole
    ``trumps host`` run (16 a source), so a relay matches the codes with probability at most
    64 in 10⁶. Check: ``Approvals.offered`` in ``Listener._flown``."""
    mallory = Side.make(tmp_path, "mallory")
    tries = MAX_LAN_OFFERS + 32

    async def scenario() -> list[str | None]:
        ann = Side.make(tmp_path, "ann")
        sock = listening_socket("127.0.0.1", 0)
        port = sock.getsockname()[1]
        async with Listener(sock, ann.me, "ann", TERMS, ann.known, approve=_never_asked):
            return [
                await _code_of_one_offer(port, f"127.0.3.{n % 8 + 1}", mallory, ann.me.fingerprint)
                for n in range(tries)
            ]

    codes = run(scenario())
    learnt = [code for code in codes if code is not None]
    assert len(learnt) == MAX_LAN_OFFERS  # before: every one of the tries, each a fresh code


def test_the_joiner_of_the_last_lan_offer_is_still_asked() -> None:
    """The bound on offers (above) must not take the question from the joiner that got the last
    offer: its offer is counted already when it confirms and its question opens."""
    approvals = Approvals(max_offers_per_source=1, max_offers=2)
    assert approvals.welcome("10.0.0.5") and approvals.may_offer("10.0.0.5")
    approvals.offered("10.0.0.5")
    assert not approvals.welcome("10.0.0.5")  # no more offers from there: the stranger's refusal
    assert approvals.open("10.0.0.5")  # but the joiner holding the offer is asked
    approvals.answer("10.0.0.5", accepted=False)
    approvals.offered("10.0.0.6")
    assert not approvals.welcome("10.0.0.7") and approvals.open("10.0.0.6")
