"""How answer extraction sees a reply: a normalised view, its sentences and clauses, its JSON values."""

from __future__ import annotations

import bisect
import json
import re
import unicodedata
from collections.abc import Iterator

from assay.graders.reading.text import read_text

__all__ = ["SKIP_BACK", "TRIM", "Passage", "clause_around", "json_text", "json_values", "read_view"]

_PICTOGRAPHS = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff]")
"""Emoji end a clause the way punctuation does ("Nein 🙂 Der Rhein..."): each becomes a line break."""
_INVISIBLE = re.compile(
    "[\ufe00-\ufe0f\u200b-\u200f\u202a-\u202e\u2060-\u2069\u061c\ufeff\u20e3\u00ad\U000e0000-\U000e007f]"
)
"""Format characters (zero-width, bidi embeddings and isolates, BOM, tags): never part of what is said."""
_NOT_OWN_LINE = re.compile(
    r"(?im)^[ \t]{0,3}(?:>.*|(?:\[[^\]\n]{0,40}\][ \t]*)?(?:user|assistant|agent|human|ai|bot|system|customer"
    r"|client|model|q|question|frage|pregunta|domanda|pergunta|вопрос|example|examples|exemple|beispiel|ejemplo|esempio|exemplo|пример|例)"
    r"(?:[ \t]?\d{1,2})?[ \t]*[:：].*)$"
)
"""Lines that are not the reply's own words: a quotation ("> agent: Yes."), a dialogue or log turn
("user: ...", "[12:01] agent: ..."), a few-shot example or echoed question ("Q: ...", "Example: ...").
An "A:" line stays: it may be the reply's own answer, and one in an example then conflicts with it."""
_QUESTION_LINE = re.compile(
    r"(?i)[ \t]{0,3}(?:q|question|frage|pregunta|domanda|pergunta|вопрос)(?:[ \t]?\d{1,2})?[ \t]*[:：]"
)
"""A reply ending on such a line echoes a list of questions and answers (few-shot examples): none is
its own."""
_MARKDOWN_LINE = re.compile(r"(?m)^[ \t]{0,3}(?:#{1,6}[ \t]|>[ \t]?|[-*+•][ \t])")
_MARKDOWN_MARKS = re.compile(
    r"\*\*+|__+|~~|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])|(?<!\w)_(?=\S)|(?<=\S)_(?!\w)"
)
_SPACES = re.compile(r"[^\S\n]+")
_SPACE_AROUND_NEWLINE = re.compile(r" ?\n ?")
_SENTENCE_END = re.compile(r"[!?。\n]|(?<!\.)\.(?=\s|$)")
"""An ellipsis ("Yes... not.") goes on with the same sentence: it never ends one."""
_CLAUSE_END = re.compile(r"[!?。\n;、;()\[\]|]|[,:](?!\d)|(?<!\.)\.(?=\s|$)|\.\.\.| [-–—](?= )|[–—]")
TRIM = " \n\"'`«»“”„‘’「」『』()[]{}<>*_~.,!;:。、…?¿¡$–—"
SKIP_BACK = frozenset(TRIM + "-") - frozenset(".!?。…")
"""What may stand between a negator and the answer it negates: spaces, line breaks, quotes, commas."""


def read_view(reply: object, max_chars: int) -> tuple[str, str]:
    """(raw, view): the capped NFKC-normalised reply, and the same without markdown, emoji, extra spaces."""
    raw = unicodedata.normalize("NFKC", read_text(reply)[-max_chars:])
    raw = raw.replace("\r\n", "\n").replace("\r", "\n").replace("’", "'").replace("‘", "'")
    view = _PICTOGRAPHS.sub("\n", _INVISIBLE.sub("", raw))
    lines = list(_NOT_OWN_LINE.finditer(view))
    last = lines[-1] if lines else None
    if last is not None and _QUESTION_LINE.match(last.group()) and not view[last.end() :].strip():
        return raw, ""  # it ends on a question of its own list ("Q: …"): its answers are examples'
    view = _NOT_OWN_LINE.sub("", view)
    view = _MARKDOWN_MARKS.sub("", _MARKDOWN_LINE.sub("", view))
    view = _SPACE_AROUND_NEWLINE.sub("\n", _SPACES.sub(" ", view))
    return raw, view.strip()


class Passage:
    """A text with its sentence and clause boundaries, for the context around a span."""

    __slots__ = ("clause_ends", "sentence_ends", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.sentence_ends = [m.start() for m in _SENTENCE_END.finditer(text)]
        self.clause_ends = [m.start() for m in _CLAUSE_END.finditer(text)]

    def sentence(self, start: int, end: int) -> tuple[int, int]:
        """The sentence holding [start, end): its first index and the index of its terminator (or len)."""
        i = bisect.bisect_left(self.sentence_ends, start)
        first = self.sentence_ends[i - 1] + 1 if i else 0
        j = bisect.bisect_left(self.sentence_ends, end)
        return first, self.sentence_ends[j] if j < len(self.sentence_ends) else len(self.text)

    def clause_start(self, pos: int) -> int:
        """Where the clause holding ``pos`` begins."""
        i = bisect.bisect_left(self.clause_ends, pos)
        return self.clause_ends[i - 1] + 1 if i else 0

    def clause_end(self, pos: int) -> int:
        """Where the clause holding ``pos`` ends (its boundary's index, or the length)."""
        i = bisect.bisect_left(self.clause_ends, pos)
        return self.clause_ends[i] if i < len(self.clause_ends) else len(self.text)

    def clauses(self) -> Iterator[tuple[int, int]]:
        """Every non-empty clause as (start, end)."""
        start = 0
        for end in (*self.clause_ends, len(self.text)):
            if end > start:
                yield start, end
            start = end + 1

    def is_question(self, start: int, end: int) -> bool:
        """Whether the sentence holding [start, end) asks (ends with "?" or holds "¿")."""
        first, last = self.sentence(start, end)
        return (last < len(self.text) and self.text[last] == "?") or "¿" in self.text[first:last]


def clause_around(text: str, start: int, end: int) -> str:
    """The clause of ``text`` holding [start, end)."""
    match_before = [m.end() for m in _CLAUSE_END.finditer(text, 0, start)]
    after = _CLAUSE_END.search(text, end)
    return text[(match_before[-1] if match_before else 0) : (after.start() if after else len(text))]


def json_values(value: object, keys: set[str], depth: int) -> Iterator[object]:
    """Values under any of ``keys`` in a decoded JSON value, searched ``depth`` levels deep."""
    if depth <= 0:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and key.casefold() in keys:
                yield item
            else:
                yield from json_values(item, keys, depth - 1)
    elif isinstance(value, list):
        for item in value[:20]:
            yield from json_values(item, keys, depth - 1)


def json_text(value: object) -> str:
    """A JSON answer as text: booleans as true/false, numbers as written, null as empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return read_view(value, 10_000)[1]
    return json.dumps(value, ensure_ascii=False)
