"""The lexicons of :mod:`assay.graders.extraction_lexicon`, compiled into the patterns extraction runs."""

from __future__ import annotations

import re
from collections.abc import Iterable

from assay.graders.extraction_lexicon import LEXICONS, Lexicon

__all__ = ["Patterns"]


class Patterns:
    """Every pattern and word table for one choice of languages and extra words; immutable once built."""

    __slots__ = (
        "causal",
        "contrast",
        "discourse",
        "hedge",
        "intensifier",
        "labels",
        "negator",
        "negator_end",
        "qualifier",
        "question_end",
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
        self.words = compile_words(answers)
        # in running CJK text one-character words (是, 对, 不) are mostly not answers; scan the longer ones
        self.scan_words = compile_words(
            (spaced, [w for w in ws if spaced or len(w) > 1]) for spaced, ws in answers
        )
        self.negator = compile_words(
            [*((lex.spaced, lex.negators) for lex in lexicons), (True, map(re.escape, extra_negators))],
            escape=False,
        )
        self.negator_end = re.compile(f"(?:{self.negator.pattern})$", re.IGNORECASE)
        self.hedge = compile_words(
            [*((lex.spaced, lex.hedges) for lex in lexicons), (True, map(re.escape, extra_hedges))],
            escape=False,
        )
        self.qualifier = compile_words((lex.spaced, lex.qualifiers) for lex in lexicons)
        self.contrast = compile_words((lex.spaced, lex.contrasts) for lex in lexicons)
        self.causal = compile_words((lex.spaced, lex.causals) for lex in lexicons)
        self.discourse = prefix(compile_words((lex.spaced, lex.discourse) for lex in lexicons))
        self.intensifier = prefix(compile_words((lex.spaced, lex.intensifiers) for lex in lexicons))
        labels = [fragment for lex in lexicons for fragment in lex.labels]
        labels += [rf"(?<![\w']){re.escape(label)} ?[:：]" for label in extra_labels]
        self.labels = re.compile("|".join(labels) or "(?!)", re.IGNORECASE)
        ends = [fragment for lex in lexicons for fragment in lex.question_ends]
        self.question_end = re.compile(f"(?:{'|'.join(ends)})$" if ends else "(?!)", re.IGNORECASE)
        self.verdicts = [verdict_pattern(lex) for lex in lexicons if lex.verdicts]
        """Per language: a copula-then-truth-word pattern and each truth word's polarity."""
        tag_names = "|".join(re.escape(t) for t in tags) or "(?!)"
        self.tag = re.compile(
            rf"<(?:{tag_names})(?=[ >])[^<>]{{0,200}}>(.{{0,{max_span_chars * 10}}}?)</(?:{tag_names}) ?>"
            rf"|\\boxed\{{([^{{}}]{{0,{max_span_chars}}})\}}",
            re.IGNORECASE | re.DOTALL,
        )


def alternation(fragments: Iterable[str], spaced: bool) -> str:
    """One regex alternative per fragment, whole-word in spaced scripts; longest first so it wins."""
    parts = []
    for fragment in sorted(set(fragments), key=len, reverse=True):
        if spaced:
            tail = "(?![\\w'])" if fragment[-1:].isalnum() else ""
            fragment = f"(?<![\\w'])(?:{fragment}){tail}"
        parts.append(fragment)
    return "|".join(parts)


def compile_words(per_script: Iterable[tuple[bool, Iterable[str]]], escape: bool = True) -> re.Pattern[str]:
    """One case-insensitive pattern for (spaced, words) groups; ``escape=False`` for regex fragments."""
    alternatives = [
        alternation((re.escape(w) if escape else w for w in words), spaced) for spaced, words in per_script
    ]
    pattern = "|".join(a for a in alternatives if a) or "(?!)"
    return re.compile(pattern, re.IGNORECASE)


def prefix(words: re.Pattern[str]) -> re.Pattern[str]:
    """A pattern matching one of ``words`` at the start, with the comma or space after it."""
    return re.compile(f"(?:{words.pattern})(?:[,、，] ?| )", re.IGNORECASE)


def verdict_pattern(lexicon: Lexicon) -> tuple[re.Pattern[str], dict[str, str]]:
    """A copula then a truth word (group 1), with each truth word's polarity."""
    polarities = {w.casefold(): "+" for w in lexicon.true}
    polarities.update((w.casefold(), "-") for w in lexicon.false)
    polarities.update((w.casefold(), p) for w, p in lexicon.verdict_only)
    words = "|".join(re.escape(w) for w in sorted(polarities, key=len, reverse=True))
    after = "(?![\\w'])" if lexicon.spaced else lexicon.verdict_after
    pattern = f"(?:{'|'.join(lexicon.verdicts)})({words}){after}"
    return re.compile(pattern, re.IGNORECASE), polarities
