"""What docs/protocol.md, docs/protocol-rationale.md and docs/operations.md say of their own tests and
of each other: every row of the table "Claims and their tests" names tests that exist and is cited
where its claim is made, no test is named anywhere else, and every link between the documents (and
every `docs/<name>.md, "Section"` in the code) lands on a heading or a claim's row."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).parent.parent
THE_THREE = ("docs/protocol.md", "docs/protocol-rationale.md", "docs/operations.md")
"""The protocol's documents: the contract, its reasons, this program's policies and figures."""
TABLE = "docs/protocol-rationale.md"
"""The document that holds the table of claims."""

_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^#{1,6} +(.+?) *$")
_ROW_ID = re.compile(r'^\| <a id="(claim-[\w-]+)"></a>')
_ANCHOR_ID = re.compile(r'<a id="([^"]+)"></a>')
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_CODE_SPAN = re.compile(r"`[^`]*`")
_NAMED_TEST = re.compile(r"`(tests/[\w/]+\.py)::(\w+)(?:\[[^\]`]*\])?`")
_TEST_FILE = re.compile(r"tests/test_\w+\.py")
_CODE_CITATION = re.compile(r'docs/([\w-]+\.md),? "([^"]+)"')


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces as hyphens.

    >>> slug("Optional flags: `offer.hints` and `move.hint`")
    'optional-flags-offerhints-and-movehint'
    >>> slug("Keep-alives, silence, stalls and forfeits")
    'keep-alives-silence-stalls-and-forfeits'
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def prose(document: str) -> tuple[str, ...]:
    """The lines of a Markdown document (a path from the repository's root) outside code blocks."""
    lines, fenced = [], False
    for line in (ROOT / document).read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return tuple(lines)


@cache
def headings(document: str) -> tuple[str, ...]:
    """The headings of a document, as written."""
    return tuple(match.group(1) for line in prose(document) if (match := _HEADING.match(line)))


@cache
def anchors(document: str) -> frozenset[str]:
    """Every anchor a link into a document may name: its headings' (numbered when one repeats, as
    GitHub numbers them) and the ids it gives (the claims' rows)."""
    seen: dict[str, int] = {}
    names = {name for line in prose(document) for name in _ANCHOR_ID.findall(line)}
    for heading in headings(document):
        base = slug(heading)
        names.add(f"{base}-{seen[base]}" if base in seen else base)
        seen[base] = seen.get(base, 0) + 1
    return frozenset(names)


def claims() -> dict[str, str]:
    """The table of claims: each row's id (``claim-NAME``) and the row."""
    rows: dict[str, str] = {}
    for line in prose(TABLE):
        if found := _ROW_ID.match(line):
            assert found.group(1) not in rows, f"two rows are {found.group(1)}"
            rows[found.group(1)] = line
    return rows


def links(document: str, line: str) -> Iterator[tuple[str, str]]:
    """The local links of one line of a document: the document each lands in and its anchor ("")."""
    for target in _LINK.findall(_CODE_SPAN.sub("", line)):
        if re.match(r"[a-z]+:", target):  # https:, mailto: are not ours to check
            continue
        path, _, anchor = target.partition("#")
        landing = PurePosixPath(document).parent / path if path else PurePosixPath(document)
        yield str(PurePosixPath(*[part for part in landing.parts if part != "."])), anchor


@cache
def _functions(path: str) -> frozenset[str]:
    """The functions a test file defines, at its top level or in its classes."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return frozenset(node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))


def test_every_claim_names_tests() -> None:
    rows = claims()
    assert len(rows) >= 40, "the table of claims is missing or was cut"
    assert [row_id for row_id, row in rows.items() if not _NAMED_TEST.search(row)] == []


def test_every_test_a_claim_names_exists() -> None:
    missing = [
        f"{row_id}: {path}::{function}"
        for row_id, row in claims().items()
        for path, function in _NAMED_TEST.findall(row)
        if not (ROOT / path).is_file() or function not in _functions(path)
    ]
    assert missing == []


def test_every_claim_is_cited_where_it_is_made() -> None:
    cited = {
        anchor
        for document in THE_THREE
        for line in prose(document)
        if not _ROW_ID.match(line)
        for landing, anchor in links(document, line)
        if landing == TABLE
    }
    assert sorted(set(claims()) - cited) == []


def test_each_claim_says_where_it_is_made() -> None:
    """The "where" column names one of the three documents and the start of one of its headings."""
    wrong = []
    for row_id, row in claims().items():
        where = row.split("|")[2].strip()
        document, _, section = where.partition(", ")
        path = f"docs/{document}.md"
        if path not in THE_THREE or not any(heading.startswith(section) for heading in headings(path)):
            wrong.append(f"{row_id}: {where}")
    assert wrong == []


def test_no_test_is_named_outside_the_table() -> None:
    """A test is named once, in its claim's row; the text links to the row."""
    stray = [
        f"{document}: {line.strip()[:80]}"
        for document in THE_THREE
        for line in prose(document)
        if any(name != f"tests/{Path(__file__).name}" for name in _TEST_FILE.findall(line))
        and not (document == TABLE and _ROW_ID.match(line))
    ]
    assert stray == []


def test_every_link_between_the_documents_lands() -> None:
    documents = ["README.md", *sorted(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md"))]
    broken = []
    for document in documents:
        for line in prose(document):
            for landing, anchor in links(document, line):
                if not (ROOT / landing).exists():
                    broken.append(f"{document}: {landing} does not exist")
                elif anchor and landing.endswith(".md") and anchor not in anchors(landing):
                    broken.append(f"{document}: {landing}#{anchor} is no heading and no row")
    assert broken == []


def test_the_code_cites_sections_that_exist() -> None:
    """A docstring or comment saying docs/<name>.md, "Section" names the start of one of its headings."""
    wrong = []
    for path in sorted(ROOT.glob("*/**/*.py")):
        if ".venv" in path.parts:
            continue
        code = " ".join(path.read_text(encoding="utf-8").split())  # a citation may be wrapped
        for document, section in _CODE_CITATION.findall(code):
            where = f"docs/{document}"
            if not (ROOT / where).is_file():
                wrong.append(f"{path.relative_to(ROOT)}: {where} does not exist")
            elif not any(heading.startswith(section) for heading in headings(where)):
                wrong.append(f'{path.relative_to(ROOT)}: {where} has no section "{section}"')
    assert wrong == []
