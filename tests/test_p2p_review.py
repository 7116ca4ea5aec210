"""An adversarial review of protocol 3: hostile peers speaking the protocol and deviating at one point.

Each test is one attack. Those that once succeeded are named after the flaw and pass since
its fix; the others are regression tests of an attack the protocol already stops, each
naming in its docstring the check whose removal would make it fail. No sockets: the
handshake machines, the sealer, the admission decisions and ``verify`` are fed directly.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from p2p.admission import MAX_ARRIVING, Admission, source_of
from p2p.channel import Sealer
from p2p.crypto import sign, tagged_hash
from p2p.errors import (
    BadHandshakeSignature,
    ConnectionClosed,
    HandshakeError,
    IdentityChanged,
    InviteRefused,
    MalformedFrame,
    P2PError,
    PeerAborted,
    SchemaError,
    TamperedFrame,
)
from p2p.handshake import HostHandshake, JoinerHandshake, SessionKeys, knock_proof, session_id
from p2p.identity import KnownPeers, Peers, load_identity, skeleton
from p2p.invite import new_secret
from p2p.liveness import Liveness, Patience
from p2p.match import Match
from p2p.messages import Accept, Bye, Confirm, Confirmed, Hello, Knock, Message, Offer, Rematch, Resume, parse
from p2p.record import RecordWriter, verify
from p2p.wire import decode, encode
from tests import test_p2p_evidence as evidence
from tests.support.handshakes import identity, sent
from tests.support.peers import run
from tests.test_p2p_evidence import _final_of, _forged, _proves_nothing, _rows
from tests.test_p2p_handshake import TERMS, Pair
from tests.test_p2p_leaving import _joiner_leaves

duelists, record = evidence.duelists, evidence.record  # the fixtures: an honest two-game record

# ------------------------------------------------------------------ flaws found (fixed)


def test_player_1s_genuine_final_where_player_0s_is_due_proves_nothing(record: Path) -> None:
    """Flaw: ann (player 0) lost; she cuts her record after the last move, drops her own final and
    keeps bob's genuine final as "evidence". It is signed by bob and bound to this match where
    the record stops (``transcript = T_end``), and applying it there fails — "player 1 sent a
    'final' while player 0's was due" — so verify used to endorse it as proof of cheating. But
    finals are not links: bob's signature covers ``T_end``, not ann's final, so the record cannot
    show which final came first, and an honest bob signs exactly this message. Fixed in
    ``Match.violation``: a final over the current transcript while finals are due proves nothing."""
    rows = _rows(record)
    cut = next(i for i, row in enumerate(rows) if row.get("by") == 0 and row["link"]["t"] == "final")
    _proves_nothing(_forged(rows, cut, _final_of(record, 1)))


@pytest.mark.parametrize(
    "invisible",
    ["\ufe0f", "\u034f", "\u3164", "\uffa0", "\u115f", "\u17b4", "\u180b", "\U000e0100"],
    ids=[
        "variation-selector",
        "grapheme-joiner",
        "hangul-filler",
        "halfwidth-filler",
        "choseong-filler",
        "khmer-inherent",
        "mongolian-fvs",
        "variation-selector-supplement",
    ],
)
def test_an_invisible_character_does_not_make_a_new_name(tmp_path: Path, invisible: str) -> None:
    """Flaw: Unicode's default-ignorable code points that Python calls printable (variation
    selectors, the combining grapheme joiner, Hangul fillers…) pass the name schema and render as
    nothing, so "bob" + U+FE0F looked exactly like bob but was a new name: another key bound it with
    no warning. TR39's skeleton removes default ignorables; so does :func:`skeleton` now."""
    name = "bob" + invisible
    parse({"t": "hello", "proto": 3, "program": "x", "name": name, "eph": bytes(32)})  # the schema lets it in
    assert skeleton(name) == skeleton("bob")
    peers = KnownPeers(tmp_path / "peers.json")
    peers.check("bob", identity().public)
    with pytest.raises(IdentityChanged, match="looks like bob"):
        peers.check(name, identity().public)


def test_a_schema_error_never_repeats_a_peers_control_characters() -> None:
    """Flaw: a hostile hello with an extra field named ``ESC ] 0 ; … BEL CSI 2 J`` made the host's
    refusal text (its log, its status line, a record's note) carry the raw escape sequence. The
    interface's ``printable`` caught it; now the protocol's own error quotes field names (repr)."""
    with pytest.raises(SchemaError) as caught:
        parse(
            {
                "t": "hello",
                "proto": 3,
                "program": "x",
                "name": "bob",
                "eph": bytes(32),
                "\x1b]0;x\x07\x9b2J": 1,
            }
        )
    assert str(caught.value).isprintable()


CHOSEN = "ann says: new invite at evil.x"
"""Text a stranger would like the host (or the joiner) to read: no secret is needed to send it."""
HELLO = {"t": "hello", "proto": 3, "program": "x", "name": "eve", "eph": bytes(32)}


@pytest.mark.parametrize(
    ("message", "named"),
    [
        ({**HELLO, "t": CHOSEN}, "unknown message type"),
        ({**HELLO, CHOSEN: 1, "hints": True}, "hello: unexpected fields: 'hints'"),
        ({**HELLO, "name": f" {CHOSEN}"}, "hello.name: must be of the form"),
        ({"t": "abort", "reason": CHOSEN[:16], "detail": ""}, "abort.reason: must be of the form"),
    ],
    ids=["type", "field", "name", "reason"],
)
def test_a_schema_error_never_repeats_a_strangers_text(message: dict[str, object], named: str) -> None:
    """Flaw: a malformed first message put up to 100 characters of anyone's choosing on the host's
    refusal line, quoted in the schema error: the message type, an unexpected field's name, a value
    not of its field's form. Now an error names the field, and a word the peer sent only if it has
    the protocol's own shape (a lowercase word of at most 16 letters). Check: ``_word`` in ``parse``."""
    with pytest.raises(SchemaError) as caught:
        parse(message)
    assert named in str(caught.value) and "ann says" not in str(caught.value) and "evil" not in str(caught.value)


# ------------------------------------------------------------ attacks the protocol stops


def test_an_offer_replayed_from_an_earlier_session_is_refused(tmp_path: Path) -> None:
    """Mallory recorded the host's offer to an earlier joiner and plays host to a new one: the
    fingerprint matches, but the offer's signature covers ``T1`` with the earlier joiner's hello
    (its fresh ``eph``). Check: :func:`check_signatures` on the offer in ``JoinerHandshake.offered``."""
    earlier = Pair(tmp_path)
    old_offer = earlier.to_offer()
    later = Pair(tmp_path)
    later.ann = earlier.ann
    joiner = JoinerHandshake(later.bob, "bob", earlier.ann.fingerprint, earlier.secret, Peers())
    joiner.start()
    with pytest.raises(BadHandshakeSignature):
        joiner.offered(old_offer)
    assert joiner.offer is None and later.join_known.load() == {}


def test_a_knock_recorded_at_another_host_run_gets_no_offer(tmp_path: Path) -> None:
    """A hello and knock recorded while the host ran before (another invite) are replayed to the
    host's new run, whose ``seen`` set is empty: the knock's MAC is under the old secret.
    Check: the proof in ``HostHandshake._knock`` (``mac_ok`` under this run's secret)."""
    pair = Pair(tmp_path)
    hello, knock = sent(pair.joiner.start())
    rerun = HostHandshake(pair.ann, "ann", TERMS, new_secret())
    rerun.receive(hello)
    with pytest.raises(InviteRefused):
        rerun.receive(knock)
    assert rerun.offer is None and rerun.refusal is not None and rerun.refusal.reason == "invite"


def test_the_hosts_own_offer_reflected_back_is_not_a_hello(tmp_path: Path) -> None:
    """Reflection in clear: the host's offer sent back as the first message of a connection (it
    carries every hello field and more) is refused unanswered. Check: ``expect(…, Hello)``."""
    offer = Pair(tmp_path).to_offer()
    host = HostHandshake(identity(), "ann", TERMS, new_secret())
    with pytest.raises(SchemaError):
        host.receive(offer)
    assert host.hello is None and host.refusal is None


def test_a_sealed_frame_reflected_to_its_sender_does_not_open() -> None:
    """Reflection sealed: the host's ``confirmed`` (sealed under ``k_HJ``, counter 0) sent back to
    the host where the joiner's ``confirm`` is due (counter 0 too). Check: one key per direction —
    ``SessionKeys.derive`` gives ``k_HJ`` and ``k_JH`` from different parts of the HKDF output."""
    keys = SessionKeys.derive(bytes(range(32)), new_secret(), bytes(32))
    host = Sealer(keys.host_to_joiner, keys.joiner_to_host)
    own = host.seal(encode(Confirmed(mac=bytes(32)).to_wire()))
    with pytest.raises(TamperedFrame):
        host.open(own)


def test_a_confirm_sealed_for_an_earlier_session_does_not_open(tmp_path: Path) -> None:
    """A recorded ``confirm`` of an earlier session of the same joiner, replayed as the first
    sealed frame of a new one: every session has fresh ephemeral keys, so fresh direction keys
    (nonces restart at 0 under a new key). Check: the X25519 shared secret in the key schedule."""
    secret = new_secret()
    keys = [SessionKeys.derive(identity().public, secret, bytes(32)) for _ in range(2)]
    earlier = Sealer(keys[0].joiner_to_host, keys[0].host_to_joiner)
    recorded = earlier.seal(encode(Confirm(nonce=bytes(32), mac=bytes(32)).to_wire()))
    with pytest.raises(TamperedFrame):
        Sealer(keys[1].host_to_joiner, keys[1].joiner_to_host).open(recorded)


def test_a_resume_claim_before_the_confirmation_is_refused_and_binds_nothing(tmp_path: Path) -> None:
    """A joiner (or anyone with the secret) skips the key confirmation and opens its sealed stream
    with a resume claim: the host has no session, so there is nothing to resume and no seat.
    Check: ``expect(…, Confirm)`` in ``HostHandshake._confirm``."""
    pair = Pair(tmp_path)
    pair.joiner.offered(pair.to_offer())
    accept = sent(pair.joiner.accept())[0]
    pair.host.receive(accept)
    with pytest.raises(SchemaError):
        pair.host.receive(Resume(root=bytes(32), links=0, transcript=bytes(32), sig=bytes(64)))
    assert pair.host.session is None and pair.host_known.load() == {}


def test_a_knock_changed_by_someone_holding_the_secret_fails_the_confirmation(tmp_path: Path) -> None:
    """Someone who has the invite (a leaked secret) relays bob's handshake but replaces the knock's
    commitment with one of their own, to steer the verification code. The host then holds another
    commitment than bob's nonce. Check: ``H("code-nonce", nonce) == knock.commit`` in ``_confirm``."""
    pair = Pair(tmp_path)
    hello, _ = sent(pair.joiner.start())
    commit = tagged_hash("code-nonce", bytes(32))
    out = sent(pair.host.receive(hello)) + sent(
        pair.host.receive(Knock(proof=knock_proof(pair.secret, pair.joiner.hello, commit), commit=commit))
    )
    pair.joiner.offered(out[0])
    accept, confirm = sent(pair.joiner.accept())
    pair.host.receive(accept)
    with pytest.raises(HandshakeError, match="key confirmation failed"):
        pair.host.receive(confirm)
    assert pair.host.session is None


@pytest.mark.parametrize(
    ("address", "source"),
    [
        ("2001:DB8:0:1::5", "2001:db8:0:1::/64"),
        ("2001:db8:0:1:ffff:ffff:ffff:ffff", "2001:db8:0:1::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("0:0:0:0:0:ffff:c000:0207", "192.0.2.7"),
    ],
)
def test_one_source_however_its_address_is_written(address: str, source: str) -> None:
    """A flooder varying the interface half of its /64 or writing its IPv4 address mapped into
    IPv6 stays one source. Check: :func:`source_of` (the /64, ``ipv4_mapped``)."""
    assert source_of(address) == source


def test_a_flood_from_other_sources_never_takes_the_reserved_slot() -> None:
    """The playing joiner's source keeps its slot while strangers from many /64s fill the pool again
    and again, in either stage. Check: ``_Stage.room`` drops the oldest *not* from the reserved source."""
    back = source_of("2001:db8:0:1::5")
    admission = Admission(reserved=back, max_arriving=16)
    assert admission.arrive("bob", back) == []
    assert admission.arrive("lan-bob", back) == [] and admission.flown("lan-bob", proven=False) == []
    for n in range(201):
        stranger = source_of(f"2001:db8:1:{n}::9")
        admission.arrive(n, stranger)
        if n % 2:  # half of them LAN knocks, pending
            assert admission.flown(n, proven=False) is not None
    assert "bob" in admission and "lan-bob" in admission
    assert admission.arriving == 16 and len(admission) == 32


def test_a_burst_from_four_addresses_cannot_evict_the_friend_before_its_knock_is_read() -> None:
    """Flaw: the friend's connection is unproven until its knock has been read, one event-loop turn
    or a round trip after it was accepted. 16 connections from just 4 addresses arriving meanwhile
    (one accept batch) dropped it, the oldest unproven one, so a sustained flood from 4 machines kept
    the friend out. Now each source beyond its share replaces its own oldest first-flight slot."""
    admission = Admission()
    admission.arrive("friend", source_of("198.51.100.7"))
    for n in range(64):
        admission.arrive(n, source_of(f"192.0.2.{n % 4}"))
    assert "friend" in admission and admission.arriving == 17


def test_the_host_is_not_awarded_the_absence_of_a_joiner_that_could_claim_its_stall() -> None:
    """Flaw (a double award): the host's player thinks past the limit while connected; the joiner
    claims the stall (awarding itself the game) and sends ``abort forfeit``, but the line drops with
    that frame (a cut, or someone on the path who drops it and resets the connection). The host
    never reads the claim, sees the joiner away past the limit and, by rule 1, was awarded the same
    game. Now a line lost while we had owed our link long enough for a stall claim makes the host's
    later absence claim award nothing (``Liveness.lost``; ``Duel._resume`` calls it)."""
    patience = Patience(silent_after=6, forfeit_after=180, claim_grace=10)
    clock = Liveness(patience, now=0.0)
    for moment in range(0, 190, 2):  # keep-alives: the host's program runs, its player thinks
        clock.pinged(float(moment))
    clock.owe(5.0)
    clock.lost(190.0)  # owed 185 s on a live connection: the joiner may have claimed
    assert not clock.absence_awards(380.0)
    clock.connected(200.0)  # it came back: it had not claimed
    clock.pinged(202.0)
    assert clock.absence_awards(220.0)
    clock.lost(260.0)  # owed only 60 s on this connection: no stall claim was possible
    assert clock.absence_awards(440.0)


def test_a_short_limit_keeps_a_margin_of_at_most_half_of_it() -> None:
    """With a limit shorter than twice ``claim_grace`` (bots, tests: 4 s), owing our link for a
    moment when the line drops does not cost the host the absence award; owing most of the limit does."""
    patience = Patience(silent_after=1, forfeit_after=4, claim_grace=10)
    clock = Liveness(patience, now=0.0)
    for moment in range(0, 11, 2):
        clock.pinged(float(moment))
    clock.owe(10.0)
    clock.lost(10.5)  # a bot thinking for half a second
    assert clock.absence_awards(14.5)
    clock.connected(20.0)
    clock.pinged(20.0)
    clock.owe(20.0)
    clock.lost(23.0)  # owed 3 s of a 4 s limit: the joiner's stall claim may be on its way
    assert not clock.absence_awards(27.0)


def test_a_deep_nesting_bomb_gets_a_reason_not_an_empty_one() -> None:
    """A 16 KiB frame of nested one-element arrays: refused, and the refusal says why (msgpack's
    depth error has an empty message). Check: ``decode`` names the error's type when it says nothing."""
    with pytest.raises(MalformedFrame) as caught:
        decode(b"\x91" * 16000)
    assert not str(caught.value).endswith("()")


def test_a_degenerate_ephemeral_key_is_refused_before_any_key_is_used(tmp_path: Path) -> None:
    """A joiner holding the secret sends a low-order X25519 point (all zeros) as its ``eph``, so that
    the shared secret is known to anyone: the host refuses the key exchange. Check: ``_exchange``
    turning the all-zero result (``ValueError``) into :class:`HandshakeError`."""
    pair = Pair(tmp_path)
    hello = Hello(proto=3, program="x", name="mallory", eph=bytes(32))
    commit = tagged_hash("code-nonce", bytes(32))
    pair.host.receive(hello)
    (offer,) = sent(pair.host.receive(Knock(proof=knock_proof(pair.secret, hello, commit), commit=commit)))
    assert isinstance(offer, Offer)
    unsigned = Accept(key=pair.bob.public, sig=bytes(64))
    accept = unsigned.with_sig(sign(pair.bob.key, "accept-sig", session_id(hello, offer, unsigned)))
    with pytest.raises(HandshakeError, match="degenerate"):
        pair.host.receive(accept)
    assert pair.host.session is None


def test_an_identity_key_readable_by_others_is_refused(tmp_path: Path) -> None:
    """A key file that others may read is not used (they could be anyone's player).
    Check: the mode test in ``load_identity``."""
    path = tmp_path / "identity.key"
    load_identity(path)
    path.chmod(0o640)
    with pytest.raises(P2PError, match="readable by others"):
        load_identity(path)


@pytest.mark.net
@pytest.mark.parametrize(
    "deviation",
    [
        Bye(),  # "I hold the whole match": a lie before the end
        Rematch(want=True),
        Resume(root=bytes(32), links=1, transcript=bytes(32), sig=bytes(64)),  # a claim on a live line
    ],
    ids=["bye", "rematch", "resume"],
)
def test_a_message_out_of_place_mid_match_is_the_peers_violation(tmp_path: Path, deviation: Message) -> None:
    """A joiner holding the deal sends, sealed and mid-game, a message that has no place there: a
    ``bye`` (which would let it leave with the host waiting in vain), a ``rematch`` or a ``resume``
    claim outside a reconnection. The host ends the match as a cheat and keeps the game. Checks:
    ``Duel._heard`` (a ``bye`` before the end; anything but a link), ``Match.apply`` (a claim
    is not the link due)."""
    end, awarded, note = run(_joiner_leaves(tmp_path, "moves", deviation))
    assert (end, awarded) == ("cheat", 0)
    assert note["end"] == "cheat" and note["winner"] == 0 and note["by"] == 1


@pytest.mark.parametrize(
    ("known", "look_alike"), [("mallory", "rnallory"), ("Alice", "AIice"), ("bob", "b0b"), ("will", "wi1l")]
)
def test_ascii_look_alikes_of_a_known_name_meet_its_key(tmp_path: Path, known: str, look_alike: str) -> None:
    """Flaw: the skeleton mapped only non-ASCII look-alikes, so "rnallory" (r, n) or "AIice" (a
    capital i) were new names, though TR39's confusables give them the skeletons of "mallory" and
    "Alice". Check: :data:`p2p.identity._ASCII_LOOK_ALIKES` in :func:`skeleton`."""
    peers = KnownPeers(tmp_path / "peers.json")
    peers.check(known, identity().public)
    with pytest.raises(IdentityChanged, match="looks like"):
        peers.check(look_alike, identity().public)


@pytest.mark.parametrize(
    ("known", "look_alike"),
    [
        ("bob", "\u0299ob"),
        ("bob", "\u0253ob"),
        ("bob", "b\u1d0fb"),
        ("dave", "\u0257ave"),
        ("ann", "\u0251nn"),
        ("bob", "b\u0275b"),
        ("bob", "\u0185ob"),
        ("bob", "\ua7b5ob"),
        ("bob", "b\u0254b"),
    ],
    ids=["small-capital-b", "b-with-hook", "small-capital-o", "d-with-hook", "alpha", "barred-o", "tone-six", "beta", "open-o"],
)
def test_latin_look_alikes_of_a_known_name_meet_its_key(tmp_path: Path, known: str, look_alike: str) -> None:
    """Flaw: letters of the Latin script itself that look like plain ones (a small capital, a
    letter with a hook, the Latin alpha) are in no confusables table, so "\u0299ob" was a new name
    beside bob. Check: :func:`p2p.identity._plain_latin` in :func:`skeleton`."""
    peers = KnownPeers(tmp_path / "peers.json")
    peers.check(known, identity().public)
    with pytest.raises(IdentityChanged, match="looks like"):
        peers.check(look_alike, identity().public)


@pytest.mark.parametrize(
    ("friend", "flood"),
    [("2001:db8:9::7", "2001:db8:1:{n:x}::9"), ("198.51.100.7", "192.0.2.{n}")],
    ids=["64s-of-one-48", "addresses-of-one-24"],
)
def test_a_burst_from_many_addresses_of_one_network_cannot_evict_the_friend(friend: str, flood: str) -> None:
    """The burst above, from 64 /64s of one /48 (or 64 addresses of one IPv4 /24), which one hosting
    account holds: each /64 is its own source (its own share), but the pool makes room out of the
    network holding the most. Check: :func:`p2p.admission.network_of` in ``Admission.arrive``."""
    admission = Admission(max_arriving=16)
    admission.arrive("friend", source_of(friend))
    for n in range(64):
        admission.arrive(n, source_of(flood.format(n=n)))
    assert "friend" in admission and len(admission) == 16


def test_a_failed_append_leaves_no_torn_line_in_the_record(
    duelists: evidence.Duelists, record: Path, tmp_path: Path
) -> None:
    """The disk fills up in the middle of appending a link: half a line reaches the file, then the
    write fails. Once there is room again the link is appended whole and the record verifies, with
    no torn line in the middle. Check: ``file.truncate(size)`` in ``RecordWriter.append``."""
    links, session = evidence.played[record].links, duelists.first
    match = Match(session.session_id, session.keys, session.terms.rules, session.terms.games)
    writer = RecordWriter(tmp_path, session, match)
    for by, link in links[:5]:
        match.apply(link, by)
        writer.append(match)
    real = writer._file
    assert real is not None

    class DiskFull:
        def __getattr__(self, name: str) -> object:
            return getattr(real, name)

        def write(self, data: bytes) -> int:
            assert real is not None
            real.write(data[: len(data) // 2])
            real.flush()
            raise OSError(errno.ENOSPC, "No space left on device")

    writer._file = DiskFull()  # type: ignore[assignment]  # a stand-in for the open file, not a BinaryIO
    match.apply(links[5][1], links[5][0])
    with pytest.raises(OSError):
        writer.append(match)
    writer._file = real
    for by, link in links[6:10]:
        match.apply(link, by)
    writer.append(match)
    writer.close()
    verified = verify(writer.path.read_text())
    assert len(verified.match.links) == 10 and not verified.truncated


def test_a_flood_from_many_networks_cannot_evict_the_friend_before_its_knock_is_read() -> None:
    """Flaw: the pool of 16 unproven handshakes counted a connection from its accept, before its
    first flight (hello + knock) was read. A flood from 16 networks or more (one connection each,
    so no network holds more than the friend's) then dropped the oldest: 16 arrivals between the
    friend's accept and the reading of its knock evicted it, whatever its proof."""
    admission = Admission()
    admission.arrive("friend", source_of("198.51.100.7"))
    for n in range(40):
        admission.arrive(n, source_of(f"10.{n}.0.1"))  # 40 /24s, one connection each
    assert "friend" in admission
    assert admission.flown("friend", proven=True) == []  # its knock proved the secret
    for n in range(40, 1040):
        admission.arrive(n, source_of(f"10.{n // 256}.{n % 256}.1"))
    assert "friend" in admission and admission.arriving == MAX_ARRIVING  # bounded, and it stays


def test_only_a_sealed_abort_is_shown_with_its_detail(tmp_path: Path) -> None:
    """Before the accept an ``abort`` travels in clear and may come from anyone on the path: the
    joiner shows its reason code only, in its own words. After it, the abort opened under the
    host's sealing key (derived from its signed ephemeral key): the host's own, shown whole.
    Check: ``self._keys`` in ``JoinerHandshake.aborted`` and ``HostHandshake.declined``."""
    pair = Pair(tmp_path)
    said = "ann did not let you in"
    before = pair.joiner.aborted(PeerAborted("declined", said))
    assert isinstance(before, ConnectionClosed) and said not in str(before) and "(declined)" in str(before)
    pair.joiner.offered(pair.to_offer())
    pair.host.receive(sent(pair.joiner.accept())[0])
    after = pair.joiner.aborted(PeerAborted("declined", said))
    assert isinstance(after, PeerAborted) and after.detail == said
    sealed = pair.host.declined(PeerAborted("confirm", "the host's key confirmation failed"))
    assert isinstance(sealed, PeerAborted) and sealed.detail == "the host's key confirmation failed"
