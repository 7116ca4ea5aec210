"""The message catalogues, with the standard library alone: extract, merge, compile, check.

The game's strings are marked in the code with ``_``, ``N_`` and ``ngettext``
(:mod:`cli.i18n`). This tool reads them out of the source, keeps every
``cli/locale/<lang>/LC_MESSAGES/trumps.po`` in step with them, and compiles
the ``.mo`` files that ship in the package::

    python -m tests.catalogues        # extract, merge into every .po, compile every .mo

A new message arrives in every ``.po`` with an empty ``msgstr`` (the tests then
fail until it is translated); a message no longer in the code is dropped.
The tests use the same functions to check that the shipped ``.mo`` files are
exactly what the ``.po`` files compile to.
"""

from __future__ import annotations

import ast
import re
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("cli", "p2p")
LOCALE = ROOT / "cli" / "locale"
DOMAIN = "trumps"
PLURAL_FORMS = {
    "uk": "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
    "it": "nplurals=2; plural=(n != 1);",
    "sq": "nplurals=2; plural=(n != 1);",
    "kk": "nplurals=2; plural=(n != 1);",
    "hi": "nplurals=2; plural=(n > 1);",
}
"""Each language's plural rule, as gettext writes it (Hindi: 0 and 1 take the singular)."""
_MARKERS = {"_": 1, "N_": 1, "ngettext": 2, "ntext": 2}


@dataclass
class Message:
    """One message: its text (and plural), where it is used, and notes for translators."""

    msgid: str
    plural: str | None = None
    places: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)
    """The translations (one, or one per plural form); empty when untranslated."""
    fuzzy: bool = False


def source_files() -> list[Path]:
    """Every Python file whose strings may be marked."""
    return sorted(
        p for folder in SOURCES for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts
    )


def extract(paths: list[Path] | None = None) -> dict[str, Message]:
    """The marked messages of ``paths`` (default: :func:`source_files`) by msgid, in order of appearance."""
    messages: dict[str, Message] = {}
    for path in paths or source_files():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if not (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _MARKERS
            ):
                continue
            count = _MARKERS[node.func.id]
            texts = [
                a.value for a in node.args[:count] if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
            if len(texts) < count:
                continue
            message = messages.setdefault(texts[0], Message(texts[0], texts[1] if count == 2 else None))
            message.places.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            for note in _notes(lines, node.lineno):
                if note not in message.notes:
                    message.notes.append(note)
    return dict(sorted(messages.items(), key=lambda item: _place_order(item[1].places[0])))


def _place_order(place: str) -> tuple[str, int]:
    path, _, line = place.rpartition(":")
    return path, int(line)


def _notes(lines: list[str], lineno: int) -> list[str]:
    """The ``# Translators:`` comment block just above line ``lineno`` (from 1), if any."""
    block: list[str] = []
    index = lineno - 2
    while index >= 0 and lines[index].strip().startswith("#"):
        block.insert(0, lines[index].strip().lstrip("#").strip())
        index -= 1
    for i, line in enumerate(block):
        if line.startswith("Translators:"):
            return block[i:]
    return []


# ------------------------------------------------------------------ .po files


def _unquote(text: str) -> str:
    body = text.strip()
    if not (body.startswith('"') and body.endswith('"')):
        raise ValueError(f"not a quoted string: {text!r}")
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}[m.group(1)], body[1:-1])


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    parts = escaped.split("\n")
    if len(parts) == 1:
        return f'"{escaped}"'
    pieces = [p + "\\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    return '""\n' + "\n".join(f'"{p}"' for p in pieces)


def read_po(path: Path) -> tuple[dict[str, str], dict[str, Message]]:
    """A ``.po`` file: its header fields and its messages by msgid (the header entry left out)."""
    messages: dict[str, Message] = {}
    header: dict[str, str] = {}
    entry: dict[str, list[str]] = {}
    flags: set[str] = set()
    key = ""

    def finish() -> None:
        nonlocal entry, flags
        if "msgid" in entry:
            msgid = "".join(entry["msgid"])
            strings = [
                "".join(entry[k]) for k in sorted((k for k in entry if k.startswith("msgstr")), key=_form)
            ]
            if msgid == "":
                for line in strings[0].splitlines():
                    name, _, value = line.partition(":")
                    header[name.strip()] = value.strip()
            else:
                plural = "".join(entry["msgid_plural"]) if "msgid_plural" in entry else None
                messages[msgid] = Message(msgid, plural, strings=strings, fuzzy="fuzzy" in flags)
        entry, flags = {}, set()

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            finish()
        elif line.startswith("#,"):
            flags |= {f.strip() for f in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            entry[key].append(_unquote(line))
        else:
            key, _, rest = line.partition(" ")
            if key == "msgid" and "msgid" in entry:
                finish()
            entry[key] = [_unquote(rest)]
    finish()
    return header, messages


def _form(key: str) -> int:
    match = re.fullmatch(r"msgstr\[(\d+)\]", key)
    return int(match.group(1)) if match else 0


def write_po(path: Path, language: str, messages: dict[str, Message], name: str) -> None:
    """Write the catalogue of ``language`` with ``messages`` (translations where known)."""
    nplurals = int(PLURAL_FORMS[language].split(";")[0].split("=")[1])
    out = [
        f"# {name} translation of Your trumps.",
        "# Keep in step with the code: python -m tests.catalogues",
        'msgid ""',
        'msgstr ""',
        '"Project-Id-Version: your-trumps\\n"',
        f'"Language: {language}\\n"',
        '"MIME-Version: 1.0\\n"',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        '"Content-Transfer-Encoding: 8bit\\n"',
        f'"Plural-Forms: {PLURAL_FORMS[language]}\\n"',
        "",
    ]
    for message in messages.values():
        out += [f"#. {note}" for note in message.notes]
        out += [f"#: {place}" for place in message.places]
        flags = (["fuzzy"] if message.fuzzy else []) + _format_flags(message.msgid)
        if flags:
            out.append("#, " + ", ".join(flags))
        out.append("msgid " + _quote(message.msgid))
        if message.plural is None:
            out.append("msgstr " + _quote(message.strings[0] if message.strings else ""))
        else:
            out.append("msgid_plural " + _quote(message.plural))
            strings = message.strings if len(message.strings) == nplurals else [""] * nplurals
            out += [f"msgstr[{i}] " + _quote(s) for i, s in enumerate(strings)]
        out.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out), encoding="utf-8")


def _format_flags(msgid: str) -> list[str]:
    if re.search(r"%(\(\w+\))?[sdrg]", msgid):
        return ["python-format"]
    if re.search(r"\{\w*(![rs])?\}", msgid):
        return ["python-brace-format"]
    return []


# ------------------------------------------------------------------ .mo files


def compile_mo(header: dict[str, str], messages: dict[str, Message]) -> bytes:
    """The GNU ``.mo`` bytes of a catalogue (fuzzy and untranslated messages left out)."""
    entries = {b"": "".join(f"{k}: {v}\n" for k, v in header.items()).encode("utf-8")}
    for message in messages.values():
        if message.fuzzy or not all(message.strings):
            continue
        key = message.msgid if message.plural is None else f"{message.msgid}\0{message.plural}"
        entries[key.encode("utf-8")] = "\0".join(message.strings).encode("utf-8")
    keys = sorted(entries)
    ids = b"".join(k + b"\0" for k in keys)
    strs = b"".join(entries[k] + b"\0" for k in keys)
    start = 7 * 4 + 16 * len(keys)
    id_table: list[int] = []
    offset = 0
    for k in keys:
        id_table += [len(k), start + offset]
        offset += len(k) + 1
    str_table: list[int] = []
    offset = 0
    for k in keys:
        str_table += [len(entries[k]), start + len(ids) + offset]
        offset += len(entries[k]) + 1
    head = struct.pack("Iiiiiii", 0x950412DE, 0, len(keys), 7 * 4, 7 * 4 + 8 * len(keys), 0, 0)
    return (
        head
        + struct.pack(f"{len(id_table)}i", *id_table)
        + struct.pack(f"{len(str_table)}i", *str_table)
        + ids
        + strs
    )


def po_path(language: str) -> Path:
    """Where the catalogue of ``language`` lives."""
    return LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def update() -> None:
    """Extract, merge into every ``.po`` (keeping translations), compile every ``.mo``."""
    sys.path.insert(0, str(ROOT))
    from cli.i18n import LANGUAGES

    current = extract()
    for language in PLURAL_FORMS:
        path = po_path(language)
        _, old = read_po(path) if path.exists() else ({}, {})
        for msgid, message in current.items():
            known = old.get(msgid)
            if known is not None and known.plural == message.plural:
                message.strings, message.fuzzy = known.strings, known.fuzzy
            else:
                message.strings, message.fuzzy = [], False
        write_po(path, language, current, LANGUAGES[language])
        header, messages = read_po(path)
        path.with_suffix(".mo").write_bytes(compile_mo(header, messages))
        missing = sum(1 for m in messages.values() if not all(m.strings) or m.fuzzy)
        print(f"{language}: {len(messages)} messages, {missing} to translate")


if __name__ == "__main__":
    update()
