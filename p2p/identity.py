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
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from p2p.crypto import fingerprint
from p2p.errors import IdentityChanged, P2PError
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


class KnownPeers:
    """Peers met before, by name, with the identity key each one showed; a name that looks like a
    known one (same :func:`skeleton`) is treated as that name."""

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
            raise P2PError(f"cannot save the known-peers file {self.path}: {exc}") from None

    def check(self, name: str, public: bytes, remember: bool = True) -> bool:
        """Accept ``name`` with key ``public``: ``True`` if new (and remembered, if ``remember``).

        Raises :class:`IdentityChanged` if ``name`` was seen with another key.
        """
        peers = self.load()
        now = datetime.now(UTC).isoformat(timespec="seconds")
        known = peers.get(name)
        if known is None:
            self._check_look_alikes(peers, name, public)
        if known is not None and known["key"] != public.hex():
            template = N_(
                "{name}'s identity key has CHANGED (was {old}, now {new}). This may be someone pretending "
                "to be {name}. If {name} really has a new key, run 'trumps peers forget {name}' and connect again."
            )
            old = fingerprint(bytes.fromhex(known["key"]))
            raise IdentityChanged(Text(template, name=name, old=old, new=fingerprint(public)))
        if not remember:
            return known is None
        first_seen = now if known is None else known.get("first_seen", now)
        peers[name] = {"key": public.hex(), "first_seen": first_seen, "last_seen": now}
        self._save(peers)
        return known is None

    def _check_look_alikes(self, peers: dict[str, dict[str, str]], name: str, public: bytes) -> None:
        """Refuse a new name that looks like a known one but comes with another key. The refusal
        names the known player (our own stored name), never ``name``: that is the peer's text,
        chosen to look like someone else's."""
        shape = skeleton(name)
        for other, info in peers.items():
            if info["key"] != public.hex() and skeleton(other) == shape:
                template = N_(
                    "a new name that looks like {known} comes with key {new}, but {known}'s identity key "
                    "is {old}. This may be someone pretending to be {known}: if it is really someone "
                    "else, they should pick another name."
                )
                old = fingerprint(bytes.fromhex(info["key"]))
                raise IdentityChanged(Text(template, known=other, old=old, new=fingerprint(public)))

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
