"""The lexicons of :mod:`assay.graders.extract.lexicon`, compiled into what extraction searches with.

Word lists run on RE2 (google-re2): one linear pass over the text whatever the number of words, where
stdlib ``re`` tries every alternative at every position (hundreds of words made it ~15 µs a character).
RE2 has no lookarounds, so the left word boundary is matched as a character and the right one, and the
vetoes ("no" in "no doubt"), are checked here in Python. Words are not casefolded: RE2's case-insensitive
matching folds simply, so "weiß" must stay "weiß" to match "Weiß". The answer tag pattern is stdlib ``re``
(a lazy repeat bounded by ``max_span_chars``, tried only where a ``<`` or ``\\boxed`` stands).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import re2

from assay.graders.extract.lexicon import LEXICONS, Lexicon

__all__ = ["Hit", "Patterns", "WordList"]

_BOUNDARY = r"(?:^|[^\pL\pN_'])"
"""A word starts at the start of the text or after a character that is no letter, digit, _ or '."""


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char in "_'"


@dataclass(frozen=True, slots=True)
class Hit:
    """A word (or label, or verdict) found in a text."""

    start: int
    end: int
    text: str


class WordList:
    """Words or phrases (or regex fragments) found case-insensitively: whole words in spaced scripts,
    anywhere in Japanese and Chinese, longest first, never followed by one of their vetoes."""

    __slots__ = ("_regex", "_spaced_groups", "_vetoes")

    def __init__(
        self,
        groups: Iterable[tuple[bool, Iterable[str]]],
        *,
        vetoes: Mapping[str, Iterable[str]] | None = None,
        escape: bool = True,
    ) -> None:
        words: dict[bool, set[str]] = {True: set(), False: set()}
        for spaced, items in groups:
            words[spaced].update(w for w in items if w.strip())
        parts, self._spaced_groups = [], []
        for spaced in (True, False):
            if words[spaced]:
                ordered = sorted(words[spaced], key=lambda w: (-len(w), w))
                alternatives = "|".join(re2.escape(w) if escape else w for w in ordered)
                parts.append(f"{_BOUNDARY if spaced else ''}({alternatives})")
                self._spaced_groups.append(spaced)
        self._regex: Any = re2.compile("(?is)" + "|".join(parts)) if parts else None
        self._vetoes = {k.casefold(): tuple(v.casefold() for v in vs) for k, vs in (vetoes or {}).items()}

    def finditer(self, text: str) -> Iterator[Hit]:
        """Every word of the list in ``text``, left to right, not overlapping."""
        if self._regex is None or not text:
            return
        for match in self._regex.finditer(text):
            group = next(g for g in range(1, len(self._spaced_groups) + 1) if match.group(g) is not None)
            start, end = match.span(group)
            hit = self._accepted(text, start, end, self._spaced_groups[group - 1])
            if hit is not None:
                yield hit

    def search(self, text: str) -> Hit | None:
        """The first word of the list in ``text``, if any."""
        return next(self.finditer(text), None)

    def starting(self, text: str) -> Hit | None:
        """The word of the list that ``text`` starts with, if any."""
        match = self._regex.match(text) if self._regex is not None and text else None
        if match is None:
            return None
        group = next(g for g in range(1, len(self._spaced_groups) + 1) if match.group(g) is not None)
        if match.start(group) != 0:
            return None
        return self._accepted(text, 0, match.end(group), self._spaced_groups[group - 1])

    def prefix_end(self, text: str) -> int:
        """How much of ``text`` a leading word of the list takes with a comma or space after it (0: none)."""
        hit = self.starting(text)
        if hit is None:
            return 0
        after = hit.end
        if text[after : after + 1] in (",", "、", "，"):
            return after + 2 if text[after + 1 : after + 2] == " " else after + 1
        return after + 1 if text[after : after + 1] == " " else 0

    def ending_at(self, text: str, end: int) -> Hit | None:
        """The word of the list that ends exactly at ``end`` (looking at most 40 characters back)."""
        start = max(0, end - 40)
        last = None
        for hit in self.finditer(text[start:end]):
            last = hit
        if last is None or last.end != end - start:
            return None
        return Hit(last.start + start, end, last.text)

    def _accepted(self, text: str, start: int, end: int, spaced: bool) -> Hit | None:
        """The hit at [start, end) if it ends a word and no veto follows, else a shorter one there, if any."""
        while end > start:
            word = text[start:end]
            bounded = not spaced or not word[-1].isalnum() or end == len(text) or not _is_word_char(text[end])
            vetoed = any(
                text[end : end + len(v)].casefold() == v for v in self._vetoes.get(word.casefold(), ())
            )
            if bounded and not vetoed:
                return Hit(start, end, word)
            # a shorter word may start here ("not sure" rejected in "not surely" leaves "not")
            shorter = self._regex.match(text[start : end - 1])
            if shorter is None:
                return None
            groups = [g for g in range(1, len(self._spaced_groups) + 1) if shorter.group(g) is not None]
            if not groups or shorter.start(groups[0]) != 0:
                return None
            end = start + shorter.end(groups[0])
        return None


class Patterns:
    """Everything extraction searches with, for one choice of languages and extra words."""

    __slots__ = (
        "causals",
        "contrasts",
        "corrections",
        "discourse",
        "hedges",
        "intensifiers",
        "label_vetoes",
        "labels",
        "negators",
        "qualifiers",
        "question_suffixes",
        "question_words",
        "scan_words",
        "tag",
        "verdicts",
        "vocabulary",
        "words",
    )

    def __init__(
        self,
        languages: Iterable[str],
        *,
        extra_negators: Iterable[str] = (),
        extra_hedges: Iterable[str] = (),
        extra_labels: Iterable[str] = (),
        tags: Iterable[str] = (),
        max_span_chars: int = 200,
    ) -> None:
        lexicons = [LEXICONS[name] for name in languages]
        self.vocabulary: dict[str, tuple[str, str]] = {}
        """Every answer word (casefolded) with its polarity ("+"/"-") and kind ("particle"/"truth")."""
        for lex in lexicons:
            for words, polarity, kind in (
                (lex.yes, "+", "particle"),
                (lex.no, "-", "particle"),
                (lex.true, "+", "truth"),
                (lex.false, "-", "truth"),
            ):
                self.vocabulary.update((w.casefold(), (polarity, kind)) for w in words)
        answers = [(lex.spaced, (*lex.yes, *lex.no, *lex.true, *lex.false)) for lex in lexicons]
        self.words = WordList(answers)
        # in running CJK text one-character words (是, 对, 不) are mostly not answers; scan the longer ones
        self.scan_words = WordList(
            (spaced, [w for w in ws if spaced or len(w) > 1]) for spaced, ws in answers
        )
        vetoes = {word: after for lex in lexicons for word, after in lex.vetoes.items()}
        self.negators = WordList(
            [*((lex.spaced, lex.negators) for lex in lexicons), (True, extra_negators)], vetoes=vetoes
        )
        self.hedges = WordList(
            [*((lex.spaced, lex.hedges) for lex in lexicons), (True, extra_hedges)], vetoes=vetoes
        )
        self.qualifiers = WordList((lex.spaced, lex.qualifiers) for lex in lexicons)
        self.contrasts = WordList((lex.spaced, lex.contrasts) for lex in lexicons)
        self.causals = WordList((lex.spaced, lex.causals) for lex in lexicons)
        self.corrections = WordList((lex.spaced, lex.corrections) for lex in lexicons)
        self.discourse = WordList((lex.spaced, lex.discourse) for lex in lexicons)
        self.intensifiers = WordList((lex.spaced, lex.intensifiers) for lex in lexicons)
        extra = [f"{re2.escape(label)} ?[:：]" for label in extra_labels]
        self.labels = WordList([*((lex.spaced, lex.labels) for lex in lexicons), (True, extra)], escape=False)
        self.label_vetoes = WordList((lex.spaced, lex.label_vetoes) for lex in lexicons)
        self.question_words = WordList((True, lex.question_ends) for lex in lexicons if lex.spaced)
        self.question_suffixes = tuple(end for lex in lexicons if not lex.spaced for end in lex.question_ends)
        self.verdicts = _Verdicts(lexicons)
        tag_names = "|".join(re.escape(t) for t in tags) or "(?!)"
        self.tag = re.compile(
            rf"<(?:{tag_names})(?=[ >])[^<>]{{0,200}}>(.{{0,{max_span_chars * 10}}}?)</(?:{tag_names}) ?>"
            rf"|\\boxed\{{([^{{}}]{{0,{max_span_chars}}})\}}",
            re.IGNORECASE | re.DOTALL,
        )
        """An answer tag's content (group 1) or a ``\\boxed{}``'s (group 2)."""

    def asks(self, sentence: str) -> bool:
        """Whether ``sentence`` (without its final mark) is a question by its words (か, 吗, ли)."""
        return sentence.rstrip(" .。").endswith(self.question_suffixes) or bool(
            self.question_words.search(sentence)
        )


class _Verdicts:
    """Truth words right after a copula ("is true", "c'est faux", "это верно"), all languages in one pass."""

    __slots__ = ("_languages", "_regex", "polarities")

    def __init__(self, lexicons: list[Lexicon]) -> None:
        self.polarities: dict[str, str] = {}
        parts, self._languages = [], []
        for lex in lexicons:
            if not lex.verdicts:
                continue
            mine = {w.casefold(): "+" for w in lex.true}
            mine.update((w.casefold(), "-") for w in lex.false)
            mine.update((w.casefold(), p) for w, p in lex.verdict_only)
            self.polarities.update(mine)
            heads = "|".join(
                f"{_BOUNDARY if lex.spaced and not v.startswith(chr(39)) else ''}(?:{v})"
                for v in lex.verdicts
            )
            words = "|".join(re2.escape(w) for w in sorted(mine, key=lambda w: (-len(w), w)))
            parts.append(f"(?:{heads})({words})")
            self._languages.append(lex)
        self._regex: Any = re2.compile("(?i)" + "|".join(parts)) if parts else None

    def finditer(self, text: str) -> Iterator[tuple[Hit, str]]:
        """Each truth word read as a verdict, with its polarity."""
        if self._regex is None:
            return
        for match in self._regex.finditer(text):
            group = next(g for g in range(1, len(self._languages) + 1) if match.group(g) is not None)
            lex, (start, end) = self._languages[group - 1], match.span(group)
            if lex.spaced:
                if end < len(text) and _is_word_char(text[end]):
                    continue
            elif end < len(text) and not text.startswith(lex.verdict_after, end):
                continue
            yield Hit(start, end, text[start:end]), self.polarities[text[start:end].casefold()]
