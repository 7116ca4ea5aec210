"""User-facing text of the network duel, in English, translatable by whoever shows it.

``p2p`` never translates (it must not depend on ``cli``, which owns the
catalogues). Instead every sentence a person may read — errors, status lines,
the output of ``trumps host`` and ``trumps join`` — is a :class:`Text`: an
English ``str`` that keeps its template (marked with :func:`N_` for the
catalogues, or made by :func:`ntext` for counts) and its fields, so that the
interface can look the template up in its own language and fill it in
(``cli.i18n.translated``). What is stored or sent (records, the wire) is the
plain English string.

>>> text = Text(N_("{name} silent for {seconds:.0f} s"), name="Bob", seconds=8.2)
>>> str(text), text.template, text.fields["name"]
('Bob silent for 8 s', '{name} silent for {seconds:.0f} s', 'Bob')
>>> str(ntext("{count} time", "{count} times", 3))
'3 times'
"""

from __future__ import annotations


def N_(template: str) -> str:
    """Mark ``template`` for the catalogues; it stays English here."""
    return template


class Text(str):
    """English text made from ``template`` and ``fields``, which it keeps for translation.

    ``plural`` and ``amount`` are set for a message about a count (see :func:`ntext`).
    """

    template: str
    fields: dict[str, object]
    plural: str | None = None
    amount: int = 0

    def __new__(cls, template: str, /, **fields: object) -> Text:
        self = super().__new__(cls, template.format(**fields) if fields else template)
        self.template = template
        self.fields = fields
        return self


def ntext(singular: str, plural: str, count: int, **fields: object) -> Text:
    """The English form of a message about ``count`` things (``{count}`` is a field), keeping both forms."""
    text = Text(singular if count == 1 else plural, count=count, **fields)
    text.template, text.plural, text.amount = singular, plural, count
    return text
