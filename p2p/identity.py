"""A player's long-term identity key and the peers they have met (trust on first use).

>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> me = load_identity(folder / "identity.key")
>>> load_identity(folder / "identity.key").public == me.public  # made once, then read back
True
>>> peers = KnownPeers(folder / "known_peers.json")
>>> peers.check("bob", bytes(32))  # first meeting: remembered
True
>>> peers.check("bob", bytes(32))
False
>>> peers.check("bob", bytes(31) + b"x")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
p2p.errors.IdentityChanged: bob's identity key has CHANGED (was ..., now ...). This may be someone ...
>>> peers.check("b\u043eb", bytes(31) + b"x")  # a Cyrillic o: the same name to the eye  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
p2p.errors.IdentityChanged: a new name that looks like bob comes with key ..., but bob's identity key is .... This may be someone ...
"""

from __future__ import annotations

import json
import re
import stat
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from p2p.crypto import fingerprint
from p2p.errors import IdentityChanged, KnownPeersUnsaved, P2PError
from p2p.files import write_atomically
from p2p.text import N_, Text


@dataclass(frozen=True)
class Identity:
    """An Ed25519 key pair; ``public`` is the raw 32-byte public key."""

    key: Ed25519PrivateKey
    public: bytes

    @classmethod
    def from_key(cls, key: Ed25519PrivateKey) -> Identity:
        """The identity of ``key``."""
        return cls(key, key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))

    @property
    def fingerprint(self) -> str:
        """The fingerprint invites carry."""
        return fingerprint(self.public)


def load_identity(path: Path) -> Identity:
    """The identity stored in ``path`` (the raw private key), made (mode 0600) on first use;
    :class:`P2PError` when it cannot be read or made (the file is left as it is)."""
    try:
        if not path.exists():
            key = Ed25519PrivateKey.generate()
            try:
                write_atomically(path, key.private_bytes_raw(), mode=0o600, exclusive=True)
                return Identity.from_key(key)
            except FileExistsError:
                pass  # another first run made one meanwhile: that one is the identity
        if path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise P2PError(f"the identity key {path} is readable by others: run 'chmod 600 {path}'")
        raw = path.read_bytes()
    except OSError as exc:  # a directory in its place, an unwritable folder: said in a line
        raise P2PError(f"the identity key {path} cannot be read or made: {exc}") from None
    if len(raw) != 32:
        raise P2PError(f"the identity key {path} is corrupt ({len(raw)} bytes, not 32)")
    return Identity.from_key(Ed25519PrivateKey.from_private_bytes(raw))


_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
)
"""Unicode's default-ignorable code points (DerivedCoreProperties.txt): shown as nothing, so a
name with them looks like the name without (TR39's skeleton removes them). Several are printable
in Python's sense (variation selectors, the grapheme joiner, Hangul fillers), so names may hold them."""


def skeleton(name: str) -> str:
    """What ``name`` looks like: two names with one skeleton are the same name to a reader.

    Unicode TR39's idea on the data of ``confusable-homoglyphs`` (Unicode's confusables
    table): compatibility forms folded (NFKC), invisible (default-ignorable) characters removed,
    case folded, each non-ASCII character that has an ASCII look-alike replaced by it (a Latin
    letter with a diacritic or a hook, or a small capital, by its plain letter), and the
    ASCII look-alikes of :data:`_ASCII_LOOK_ALIKES` made one, so that "b\\u043eb" (a Cyrillic
    o), "bob\\ufe0f" (a variation selector), "b0b" and "Bob" are all "bob".

    >>> skeleton("b\u043eb") == skeleton("bob\ufe0f") == skeleton("b0b") == skeleton("Bob") == "bob"
    True
    >>> skeleton("\u0299ob") == skeleton("\u0253ob") == "bob"  # a small capital B, a b with a hook
    True
    """
    visible = _INVISIBLE.sub("", unicodedata.normalize("NFKC", name))
    shape = _ascii_look_alikes(_latin_look_alikes(visible))  # before case folding: "I" is "l"
    return _ascii_look_alikes(_latin_look_alikes(shape.casefold())).casefold()


_ASCII_LOOK_ALIKES = (("rn", "m"), ("I", "l"), ("1", "l"), ("|", "l"), ("0", "O"))
"""ASCII spellings that TR39's confusables table gives one skeleton (``rn`` and ``m``, capital
``I``, ``1``, ``|`` and ``l``, ``0`` and ``O``): "AIice" and "rnallory" are Alice and mallory."""


def _ascii_look_alikes(text: str) -> str:
    for look_alike, letter in _ASCII_LOOK_ALIKES:
        text = text.replace(look_alike, letter)
    return text


def _latin_look_alikes(text: str) -> str:
    """Each non-ASCII character of ``text`` that has an ASCII look-alike replaced by it."""
    from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

    letters = []
    for char in text:
        found = (
            []
            if char.isascii()
            else confusables.is_confusable(char, preferred_aliases=["latin"], greedy=True)
        )
        homoglyphs = [g["c"] for item in found or [] for g in item["homoglyphs"] if g["c"].isascii()]
        letters.append(homoglyphs[0] if homoglyphs else _plain_latin(char))
    return "".join(letters)


_LATIN_LETTER = re.compile(
    r"LATIN (SMALL |CAPITAL )?LETTER (?:SMALL CAPITAL |DOTLESS |SCRIPT |BARRED |OPEN )?"
    r"([A-Z]|ALPHA|BETA|IOTA|TONE SIX)(?: WITH .+)?"
)
"""The Unicode names of Latin letters that look like a plain one: with a diacritic, a hook, a
stroke or a bar (``WITH ...``), a small capital, dotless, script, barred or open, and the Latin
alpha, beta, iota and tone six (a, b, i, b)."""
_LATIN_NAMED = {"ALPHA": "A", "BETA": "B", "IOTA": "I", "TONE SIX": "B"}


def _plain_latin(char: str) -> str:
    """The plain ASCII letter a Latin letter looks like ("\u0299", a small capital B, is "b";
    "\u0253", b with a hook, is "b"), or ``char`` itself. No confusables table has these: they
    are letters of the Latin script itself."""
    match = _LATIN_LETTER.fullmatch(unicodedata.name(char, ""))
    if match is None:
        return char
    case, letter = match.groups()
    plain = _LATIN_NAMED.get(letter, letter)
    return plain if case == "CAPITAL " else plain.lower()


_KEY = re.compile("[0-9a-f]{64}")
"""A known peer's identity key as the file holds it: 32 bytes in lowercase hex."""


@dataclass(frozen=True)
class Peers:
    """The known peers as read at one moment, name → identity key: checks, and no file (what the
    handshake machines are given, so that they do no I/O; :class:`KnownPeers` is the file).

    >>> peers = Peers({"bob": bytes(32)})
    >>> peers.check("bob", bytes(32)), peers.check("carol", bytes(32))
    (False, True)
    >>> peers.look_alike("b\u043eb", bytes(31) + b"x")  # a Cyrillic o, another key: maybe not bob
    'bob'
    """

    keys: Mapping[str, bytes] = field(default_factory=dict)

    def check(self, name: str, public: bytes) -> bool:
        """Whether ``name`` with key ``public`` is new (not known yet). Raises
        :class:`IdentityChanged` if ``name`` was seen with another key, or if it is a new name that
        looks like a known one (:meth:`look_alike`) coming with another key than that one's."""
        known = self.keys.get(name)
        if known is not None and known != public:
            template = N_(
                "{name}'s identity key has CHANGED (was {old}, now {new}). This may be someone pretending "
                "to be {name}. If {name} really has a new key, run 'trumps peers forget {name}' and connect again."
            )
            raise IdentityChanged(Text(template, name=name, old=fingerprint(known), new=fingerprint(public)))
        other = self.look_alike(name, public) if known is None else None
        if other is not None:
            # the refusal names the known player (our own stored name), never ``name``: that is the
            # peer's text, chosen to look like someone else's
            template = N_(
                "a new name that looks like {known} comes with key {new}, but {known}'s identity key "
                "is {old}. This may be someone pretending to be {known}: if it is really someone "
                "else, they should pick another name."
            )
            old = fingerprint(self.keys[other])
            raise IdentityChanged(Text(template, known=other, old=old, new=fingerprint(public)))
        return known is None

    def look_alike(self, name: str, public: bytes) -> str | None:
        """A known name other than ``name`` that looks like it (the same :func:`skeleton`) and
        holds another key than ``public``: whom a peer of that name and key may be pretending to
        be (the first such name in sorted order), or ``None``."""
        shape = skeleton(name)
        return next(
            (
                other
                for other in sorted(self.keys)
                if other != name and self.keys[other] != public and skeleton(other) == shape
            ),
            None,
        )


class KnownPeers:
    """The file of the peers met before, by name, with the identity key each one showed (trust on
    first use); a name that looks like a known one (same :func:`skeleton`) is treated as that name."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> dict[str, dict[str, str]]:
        """Name → ``{"key": hex, "first_seen": iso date, "last_seen": iso date}``."""
        peers = self._read()
        for name, info in peers.items():
            if not isinstance(info.get("key"), str) or not _KEY.fullmatch(info["key"]):
                raise P2PError(
                    f"the known-peers file {self.path} is corrupt: the key of {name!r} is not 64 hex "
                    f"digits ('trumps peers forget {name}' removes it)"
                )
        return peers

    def peers(self) -> Peers:
        """The known peers as they are now (:class:`P2PError` if the file is damaged)."""
        return Peers({name: bytes.fromhex(info["key"]) for name, info in self.load().items()})

    def _read(self) -> dict[str, dict[str, str]]:
        """The file's entries, each a JSON object, their keys unchecked."""
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep
            raise P2PError(f"the known-peers file {self.path} is unreadable: {exc}") from None
        if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
            raise P2PError(f"the known-peers file {self.path} is corrupt")
        return data

    def _save(self, peers: dict[str, dict[str, str]]) -> None:
        text = json.dumps(peers, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        try:
            write_atomically(self.path, text.encode(), mode=0o600)
        except OSError as exc:  # a full disk, a read-only folder: said in a line, never a traceback
            raise KnownPeersUnsaved(f"cannot save the known-peers file {self.path}: {exc}") from None

    def check(self, name: str, public: bytes, remember: bool = True) -> bool:
        """Accept ``name`` with key ``public`` (:meth:`Peers.check`): ``True`` if new; remembered
        (:meth:`remember`) if ``remember``."""
        new = self.peers().check(name, public)
        if remember:
            self.remember(name, public)
        return new

    def remember(self, name: str, public: bytes) -> None:
        """Keep ``name`` with key ``public``, seen now (first seen now, if new): what a handshake's
        :class:`~p2p.handshake.Remember` asks once it bound the peer."""
        peers = self.load()
        now = datetime.now(UTC).isoformat(timespec="seconds")
        first_seen = peers.get(name, {}).get("first_seen", now)
        peers[name] = {"key": public.hex(), "first_seen": first_seen, "last_seen": now}
        self._save(peers)

    def forget(self, name: str) -> bool:
        """Forget ``name``; whether it was known (a damaged key of it too: the way to mend one)."""
        peers = self._read()
        if peers.pop(name, None) is None:
            return False
        self._save(peers)
        return True


def default_name() -> str:
    """The player name announced when none is given: the login name."""
    import getpass

    try:
        name = getpass.getuser()
    except (OSError, KeyError):
        name = ""
    return (name.strip() or "player")[:32]
