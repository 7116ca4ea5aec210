"""Every message of the protocol, and the schema check each one passes before use.

A message travels as a msgpack map: ``t`` names its type, the other keys are
exactly the fields of the dataclass below, in order. :func:`parse` turns a
decoded object into a message or raises :class:`~p2p.errors.SchemaError`
naming the field at fault:

>>> parse({"t": "chat", "text": "good luck"})
Chat(text='good luck')
>>> parse({"t": "chat", "text": "\\x1b[2J"})
Traceback (most recent call last):
...
p2p.errors.SchemaError: chat.text: must be printable text
>>> parse({"t": "move", "game": 1})
Traceback (most recent call last):
...
p2p.errors.SchemaError: move: missing fields: hash, move, n, sig
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import Field, dataclass, field, fields, replace
from typing import Any, ClassVar, Self, TypeVar, cast

from p2p.errors import SchemaError
from p2p.text import N_, Text

PROTOCOL = 3
"""The protocol version; peers must speak the same one (3: invite secret, key confirmation)."""
MAX_GAMES = 99
"""The most games a match may have (``offer.games``, the games of links)."""

Check = Callable[[object, str], object]
M = TypeVar("M", bound="Message")


def _spec(check: Check) -> Any:
    return field(metadata={"check": check})


def _bytes(size: int) -> Any:
    def check(value: object, where: str) -> object:
        if not isinstance(value, bytes) or len(value) != size:
            raise SchemaError(Text(N_("{where}: must be {size} bytes"), where=where, size=size))
        return value

    return _spec(check)


def _whole(value: object, where: str, low: int, high: int) -> object:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise SchemaError(
            Text(N_("{where}: must be a whole number {low}-{high}"), where=where, low=low, high=high)
        )
    return value


def _int(low: int, high: int) -> Any:
    return _spec(lambda value, where: _whole(value, where, low, high))


def _bool() -> Any:
    def check(value: object, where: str) -> object:
        if not isinstance(value, bool):
            raise SchemaError(Text(N_("{where}: must be true or false"), where=where))
        return value

    return _spec(check)


def _flag() -> Any:
    """A bool that is left out of the wire map when false, so that a message without it is
    byte for byte what it was before the flag existed; when present it must be ``true``
    (a second way to write false would change the signed bytes on re-encoding)."""

    def check(value: object, where: str) -> object:
        if value is not True:
            raise SchemaError(Text(N_("{where}: must be true, or left out for false"), where=where))
        return value

    return field(default=False, kw_only=True, metadata={"check": check, "omitted": False})


FORFEIT_MS = 180_000
"""A side's forfeit limit in milliseconds when its ``offer.limit_ms`` or ``accept.limit_ms`` is left
out (the program's default ``--timeout`` of 180 s)."""
MOST_FORFEIT_MS = 86_400_000
"""The longest forfeit limit a side may state: a day."""


def _limit_ms() -> Any:
    """A forfeit limit in milliseconds, left out of the wire map when it is :data:`FORFEIT_MS`
    (so a match with the default limits sends what it sent before the field existed); when
    present it must not be the default, for the reason :func:`_flag` gives."""

    def check(value: object, where: str) -> object:
        _whole(value, where, 1, MOST_FORFEIT_MS)
        if value == FORFEIT_MS:
            raise SchemaError(
                Text(N_("{where}: must be left out for the default {default}"), where=where, default=FORFEIT_MS)
            )
        return value

    return field(default=FORFEIT_MS, kw_only=True, metadata={"check": check, "omitted": FORFEIT_MS})


def _text(max_len: int, pattern: str | None = None) -> Any:
    regex = re.compile(pattern) if pattern else None

    def check(value: object, where: str) -> object:
        if not isinstance(value, str) or len(value) > max_len:
            raise SchemaError(
                Text(N_("{where}: must be text of at most {count} characters"), where=where, count=max_len)
            )
        if regex is not None and not regex.fullmatch(value):  # the value is not shown: anyone's text
            raise SchemaError(Text(N_("{where}: must be of the form {pattern}"), where=where, pattern=pattern))
        if not value.isprintable():
            raise SchemaError(Text(N_("{where}: must be printable text"), where=where))
        return value

    return _spec(check)


def _name() -> Any:
    return _text(32, r"\S(.*\S)?")


def _sig() -> Any:
    return _bytes(64)


_REGISTRY: dict[str, type[Message]] = {}


@dataclass(frozen=True)
class Message:
    """Base of all messages; subclasses name their wire type with ``tag=``."""

    TAG: ClassVar[str]

    def __init_subclass__(cls, tag: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if tag:
            cls.TAG = tag
            _REGISTRY[tag] = cls

    def to_wire(self) -> dict[str, object]:
        """The map that goes on the wire (key order is part of the canonical form)."""
        return {"t": self.TAG} | {
            f.name: getattr(self, f.name)
            for f in specs(type(self))
            if "omitted" not in f.metadata or getattr(self, f.name) != f.metadata["omitted"]
        }


class Signed(Message):
    """A message its sender signs; ``sig`` is always its last field."""

    sig: bytes  # declared as the last field by each subclass

    def body(self) -> dict[str, object]:
        """The wire map without the signature: what the signature covers."""
        wire = self.to_wire()
        del wire["sig"]
        return wire

    def with_sig(self, sig: bytes) -> Self:
        """The same message carrying signature ``sig``."""
        signed: Self = replace(cast(Any, self), sig=sig)
        return signed


# ------------------------------------------------------------ handshake (clear)


@dataclass(frozen=True)
class Hello(Message, tag="hello"):
    """Joiner → host, first: versions, name, ephemeral X25519 key (the same fields as in protocol 2,
    so that a peer of either version can read it and answer "incompatible")."""

    proto: int = _int(0, 65535)
    program: str = _text(32)
    name: str = _name()
    eph: bytes = _bytes(32)


@dataclass(frozen=True)
class Knock(Message, tag="knock"):
    """Joiner → host, right after the hello: proof of the invite's secret, and a commitment
    to the nonce that the verification code depends on (revealed in :class:`Confirm`)."""

    proof: bytes = _bytes(32)
    commit: bytes = _bytes(32)


@dataclass(frozen=True)
class Offer(Signed, tag="offer"):
    """Host → joiner: the host's versions, keys and proposed match, signed."""

    proto: int = _int(0, 65535)
    program: str = _text(32)
    name: str = _name()
    eph: bytes = _bytes(32)
    key: bytes = _bytes(32)
    pickup: str = _text(9, "forced|voluntary")
    sixes: bool = _bool()
    max_moves: int = _int(1, 1_000_000)
    games: int = _int(1, MAX_GAMES)
    host_seat: int = _int(0, 1)
    hints: bool = _flag()
    """Whether the host allows the AI's hint in this match (left out: no hints, as before)."""
    limit_ms: int = _limit_ms()
    """The host's forfeit limit (its ``--timeout``); the match's is the longer of the two sides'."""
    sig: bytes = _sig()


@dataclass(frozen=True)
class Accept(Signed, tag="accept"):
    """Joiner → host: the joiner's identity key and its signature: it accepts the offer."""

    key: bytes = _bytes(32)
    limit_ms: int = _limit_ms()
    """The joiner's forfeit limit (its ``--timeout``); the match's is the longer of the two sides'."""
    sig: bytes = _sig()


@dataclass(frozen=True)
class Confirm(Message, tag="confirm"):
    """Joiner → host, the first sealed frame: key confirmation over the whole handshake, and the
    nonce committed to in the knock."""

    nonce: bytes = _bytes(32)
    mac: bytes = _bytes(32)


@dataclass(frozen=True)
class Confirmed(Message, tag="confirmed"):
    """Host → joiner, the host's first sealed frame: its key confirmation; the joiner is admitted."""

    mac: bytes = _bytes(32)


@dataclass(frozen=True)
class Abort(Message, tag="abort"):
    """Either way, clear or sealed: the sender ends the session, saying why."""

    reason: str = _text(16, "[a-z]+")
    detail: str = _text(300)


# ----------------------------------------------------------- the match (sealed)


@dataclass(frozen=True)
class Commit(Signed, tag="commit"):
    """A commitment to this game's secret and trump preference."""

    game: int = _int(1, MAX_GAMES)
    commitment: bytes = _bytes(32)
    sig: bytes = _sig()


@dataclass(frozen=True)
class Reveal(Signed, tag="reveal"):
    """The opening of a commitment: the trump preference and the secret."""

    game: int = _int(1, MAX_GAMES)
    pref: str = _text(2, "([SHDC])(?!\\1)[SHDC]")
    secret: bytes = _bytes(32)
    sig: bytes = _sig()


@dataclass(frozen=True)
class MoveMsg(Signed, tag="move"):
    """A move, its number in the game and the hash of the position it leads to."""

    game: int = _int(1, MAX_GAMES)
    n: int = _int(1, 1_000_000)
    move: str = _text(5, "take|[6-9TJQKA][SHDC](,[6-9TJQKA][SHDC])?")
    hash: bytes = _bytes(32)
    hint: bool = _flag()
    """Whether the sender asked the AI for a hint before this move (only where the terms allow)."""
    sig: bytes = _sig()


@dataclass(frozen=True)
class Final(Signed, tag="final"):
    """A signature over the final transcript hash, closing the match."""

    transcript: bytes = _bytes(32)
    sig: bytes = _sig()


@dataclass(frozen=True)
class Chat(Message, tag="chat"):
    """A line of chat; not part of the signed transcript."""

    text: str = _text(200)

    @classmethod
    def of(cls, text: str) -> Chat:
        """The chat line ``text`` as the schema takes it: white space (a tab, a line break) as a
        space, other characters that are not printable (a pasted zero-width space) left out, the
        ends trimmed, at most 200 characters. Sent as typed, the peer would refuse it as our
        protocol violation.

        >>> Chat.of("good\u200b luck,\\tann\\n")
        Chat(text='good luck, ann')
        """
        kept = "".join(c if c.isprintable() else " " if c.isspace() else "" for c in text)
        return cls(text=kept.strip()[:200])


@dataclass(frozen=True)
class Ping(Message, tag="ping"):
    """A keep-alive, sent when the line is otherwise quiet; not part of the transcript."""


@dataclass(frozen=True)
class Bye(Message, tag="bye"):
    """The sender holds the whole match, both final signatures included: it may leave.

    A side waits for the other's ``bye`` (resuming if the line drops) before it leaves,
    so that the last link of a match is never lost on the way.
    """


@dataclass(frozen=True)
class Resume(Signed, tag="resume"):
    """First message on a reconnection, each way: how much of the match the sender holds.

    ``links`` counts the sender's accepted links (finals included) of the match rooted at
    ``root``; ``transcript`` is the transcript hash after them. Signed, so that a peer
    returning with another history leaves a signed statement of it (the evidence).
    """

    root: bytes = _bytes(32)
    links: int = _int(0, 1_000_000)
    transcript: bytes = _bytes(32)
    sig: bytes = _sig()


@dataclass(frozen=True)
class Rematch(Message, tag="rematch"):
    """After a complete match: whether the sender wants another one on this connection."""

    want: bool = _bool()


_WORD = re.compile(r"[a-z][a-z_]{0,15}")
"""The shape of the protocol's own words (message types, field names)."""


def _word(value: object) -> str:
    """A word the peer sent, as an error names it: quoted if it has the shape of the protocol's
    own words (a lowercase ASCII word of at most 16 letters), else ``?``: before the handshake
    proves anything it is text of anyone's choosing, and is not shown."""
    return repr(value) if isinstance(value, str) and _WORD.fullmatch(value) else "?"


def message_class(tag: object) -> type[Message]:
    """The message class of wire type ``tag``."""
    cls = _REGISTRY.get(tag) if isinstance(tag, str) else None
    if cls is None:
        raise SchemaError(Text(N_("unknown message type {tag}"), tag=_word(tag)))
    return cls


_SPECS: dict[type[Message], tuple[Field[Any], ...]] = {}


def specs(cls: type[Message]) -> tuple[Field[Any], ...]:
    """The fields of message class ``cls`` (:func:`dataclasses.fields`), found once: every message
    sent, received, signed or recorded goes through them."""
    found = _SPECS.get(cls)
    if found is None:
        found = _SPECS[cls] = fields(cls)
    return found


def parse(obj: object) -> Message:
    """The message ``obj`` (a decoded frame) encodes, checked field by field."""
    if not isinstance(obj, dict):
        raise SchemaError(Text(N_("a message must be a map, not {kind}"), kind=type(obj).__name__))
    tag = obj.get("t")
    cls = message_class(tag)
    checks = specs(cls)
    names = {f.name for f in checks}
    missing = names - obj.keys() - {f.name for f in checks if "omitted" in f.metadata}
    if missing:
        raise SchemaError(
            Text(N_("{tag}: missing fields: {fields}"), tag=tag, fields=", ".join(sorted(missing)))
        )
    extra = obj.keys() - names - {"t"}
    if extra:
        unexpected = ", ".join(sorted(map(_word, extra)))[:100]
        raise SchemaError(Text(N_("{tag}: unexpected fields: {fields}"), tag=tag, fields=unexpected))
    values = {f.name: f.metadata["check"](obj[f.name], f"{tag}.{f.name}") for f in checks if f.name in obj}
    return cls(**values)


def to_json(message: Message) -> dict[str, object]:
    """A message's wire map with bytes as hex, for JSON records."""
    return {k: v.hex() if isinstance(v, bytes) else v for k, v in message.to_wire().items()}


def expect(message: Message, kind: type[M], context: str) -> M:
    """``message`` if it is a ``kind``; :class:`SchemaError` saying what was due otherwise."""
    if not isinstance(message, kind):
        template = N_("{context}: expected a {expected!r} message, got {got!r}")
        raise SchemaError(Text(template, context=context, expected=kind.TAG, got=message.TAG))
    return message
