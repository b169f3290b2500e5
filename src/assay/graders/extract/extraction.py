"""Answer extraction: find the final answer in a reply written in sentences, or refuse — never guess.

Agents answer "The answer is: yes", "**Answer:** True", "<answer>B</answer>", "Oui, c'est exact." This
module returns the span a wrapped grader should judge, or ``span=None`` with the name of the reason it
refused (:class:`Extraction`). It is pure, deterministic, thread-safe and never raises. Options are
:class:`ExtractionRules` (``RULES_SCHEMA`` for a grader config); words per language are in
:mod:`~assay.graders.extract.lexicon` (en, fr, de, es, it, pt, ja, zh, ru — true-false's presets).

The rules are in docs/extraction.md: what is read of a reply (the last ``max_reply_chars``, normalised),
the rules that find candidates in priority order (tagged, json_field, labelled, leading_word, lone_word,
verdict, whole_reply, last_short_line), the refusals in the order they are checked (hedged,
conflicting_candidates, question, negated, mixed, corrected, no_answer) and what each reads, with examples in
every language. Word lists, labels and verdicts run on RE2 (:mod:`~assay.graders.extract.patterns`):
linear in the reply; the few stdlib ``re`` patterns left here are short, bounded and never nested.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator

from assay.graders.extract.candidate import EXPLICIT as _EXPLICIT
from assay.graders.extract.candidate import Candidate, conflict_among, refuse
from assay.graders.extract.later import (
    contrastive_not,
    correction_after,
    flipping_question,
    quoted_ranges,
    second_answer,
)
from assay.graders.extract.patterns import Hit, Patterns
from assay.graders.extract.rules import (
    DEFAULT_RULES,
    PICKING_RULES,
    REFUSALS,
    RULES_SCHEMA,
    Extraction,
    ExtractionRules,
)
from assay.graders.extract.view import (
    SKIP_BACK,
    TRIM,
    Passage,
    clause_around,
    json_text,
    json_values,
    read_view,
)
from assay.graders.reading.text import read_text

__all__ = [
    "DEFAULT_RULES",
    "PICKING_RULES",
    "REFUSALS",
    "RULES_SCHEMA",
    "Extraction",
    "ExtractionRules",
    "Extractor",
    "compiled",
    "extract_answer",
]


def extract_answer(reply: object, rules: ExtractionRules = DEFAULT_RULES) -> Extraction:
    """The final answer in ``reply`` (any value, read as text), or a refusal. Never raises."""
    return compiled(rules).extract(reply)


@functools.lru_cache(maxsize=32)
def compiled(rules: ExtractionRules) -> Extractor:
    """The :class:`Extractor` for ``rules``, built once per distinct rules (a pure, thread-safe cache)."""
    return Extractor(rules)


_LETTER_OR_NUMBER = re.compile(r"(?-i:(?<![\w'])[A-J](?![\w']))|(?<![\w.,])\d[\d.,]*")
_OR = re.compile(r"\S (?:or|ou|oder|oppure|или|либо) \S|\S ?(?:或者|或|还是|または) ?\S", re.IGNORECASE)
_WORD_FOLLOWS = re.compile(r" \w")
_QUOTED = re.compile(
    "\"[^\"\n]{0,200}\"|“[^”\n]{0,200}”|«[^»\n]{0,200}»|「[^」\n]{0,200}」|(?<![\\w'])'[^'\n]{0,200}'(?![\\w'])"
)
"""Quoted text: a negator inside a quote ("the claim 'X is not Y' is false") is not the reply's own."""
_BOXED = re.compile(r"\\boxed\{")
_CJK_COPULA = re.compile(r"(?:です|でございます|である|だ)$")
_VERDICT_TAIL = re.compile(r"[\s.!。]*(?:です|でございます|である|だ|的)?[\s.!。]*")
"""What may follow a verdict's truth word at the end of an answer span: marks, a copula, 的."""
_CJK_PARTICLE = re.compile(r"[的了啊呀哦]$")
_THAT = re.compile(r"(?i),? (?:that|que|qu'|dass|che|что|whether|if|ob|se)(?!\w)")
"""After a truth word, a clause it introduces: "It is true that 9 is odd" judges no answer."""
_MAX_UNREAD = 64
"""Explicit answer markers read before the window, at most (a reply holding more is refused anyway)."""
_UNREAD_SPAN = 600
"""Characters read from each marker before the window: its answer and the clause around it."""
_HYPOTHETICAL = re.compile(
    r"(?i)(?<!\w)(?:to|would|could|might|may|can|will|if|whether|should|must|when|unless) (?:\w+ ){0,2}$"
)
"""Before a verdict's truth word, what makes it hypothetical rather than said ("likely to be wrong")."""
_NEAR = 1500
"""A reply longer than this is read for hedges from the answer's paragraph on (at most 200 characters before
its sentence): a hedge word in the descriptive prose of a long reasoning ("the kind of insulation", "less
likely") does not doubt the answer it leads to."""


class Extractor:
    """Extraction with its rules compiled: build once (see :func:`compiled`), call :meth:`extract` often."""

    __slots__ = ("_json_key", "_p", "_rules")

    def __init__(self, rules: ExtractionRules = DEFAULT_RULES) -> None:
        self._rules = rules
        self._p = Patterns(
            rules.languages,
            extra_negators=rules.extra_negators,
            extra_hedges=rules.extra_hedges,
            extra_labels=rules.extra_labels,
            tags=rules.tags,
            max_span_chars=rules.max_span_chars,
        )
        keys = "|".join(re.escape(key) for key in rules.json_keys) or "(?!)"
        self._json_key = re.compile(rf'"(?:{keys})"\s*:', re.IGNORECASE)

    # --- the entry point -------------------------------------------------------------------------------

    def extract(self, reply: object) -> Extraction:
        """The final answer in ``reply``, or a refusal naming why. Never raises."""
        try:
            return self._extract(reply)
        except Exception:  # a reply must never crash grading: one we cannot read holds no answer
            return refuse("no_answer", "The reply could not be read")

    def _extract(self, reply: object) -> Extraction:
        raw, view = read_view(reply, self._rules.max_reply_chars)
        if not view:
            return refuse("no_answer", "The reply is empty")
        doc = Passage(view)
        candidates = [*self._unread(reply), *self._candidates(doc, raw)]
        answered = [c for c in candidates if not c.doc.is_question(c.start, c.end)]
        candidates = answered or candidates  # an echoed question is not an answer when an answer follows
        hedge = self._p.hedges.search(view) if self._rules.refuse_hedged else None
        if hedge is not None and len(view) <= _NEAR:
            return refuse("hedged", f"The reply hedges ('{hedge.text}'), so it gives no clear answer")
        if conflict := conflict_among(candidates):
            return conflict
        chosen = self._choose(candidates) or self._short_line(doc)
        if chosen is None:
            return refuse("no_answer", "No answer was found in the reply")
        if hedge is not None and (hedge := self._p.hedges.search(self._near(doc, chosen))):
            return refuse("hedged", f"The reply hedges ('{hedge.text}') near its answer")
        return self._judge(chosen)

    def _unread(self, reply: object) -> Iterator[Candidate]:
        """Explicit answers in the part of a long reply before the read window: a reply stating two answers
        never passes, whatever its length (they are compared with the window's). Found by a linear search
        for their markers, then read in a short window around each (a whole head costs too much)."""
        text = reply if type(reply) is str else read_text(reply)
        limit = self._rules.max_reply_chars
        if len(text) <= limit:
            return
        head = text[:-limit]
        enabled = self._rules.rules
        markers: list[int] = []
        if "labelled" in enabled:
            markers += [hit.start for hit in self._p.labels.finditer(head)]
        if "tagged" in enabled:
            markers += [match.start() for match in self._p.tag.finditer(head)]
        if "json_field" in enabled:
            markers += [match.start() for match in self._json_key.finditer(head)]
        for marker in sorted(markers)[:_MAX_UNREAD]:
            start = head.rfind("{", max(0, marker - 200), marker + 1) if head[marker] == '"' else marker
            raw, view = read_view(head[max(start, 0) : marker + _UNREAD_SPAN], _UNREAD_SPAN + 200)
            doc = Passage(view)
            if "tagged" in enabled:
                yield from self._tagged(doc)
            if "json_field" in enabled:
                yield from self._json(raw)
            if "labelled" in enabled:
                yield from self._labelled(doc)

    @staticmethod
    def _near(doc: Passage, chosen: Candidate) -> str:
        """The part of the reply read for hedges: all of a short one; of a long one, from a little before
        the answer's sentence to the end (its last part when the answer came from JSON)."""
        if len(doc.text) <= _NEAR:
            return doc.text
        if chosen.doc is not doc:
            return doc.text[-_NEAR:]
        paragraph = doc.text.rfind("\n\n", 0, chosen.start)
        return doc.text[max(paragraph, doc.sentence(chosen.start, chosen.end)[0] - 200, 0) :]

    # --- finding candidates ------------------------------------------------------------------------------

    def _candidates(self, doc: Passage, raw: str) -> Iterator[Candidate]:
        enabled = self._rules.rules
        if "tagged" in enabled:
            yield from self._tagged(doc)
        if "json_field" in enabled:
            yield from self._json(raw)
        if "labelled" in enabled:
            yield from self._labelled(doc)
        if "leading_word" in enabled or "lone_word" in enabled:
            yield from self._lone(doc)
        if "verdict" in enabled:
            yield from self._verdict(doc)

    def _tagged(self, doc: Passage) -> Iterator[Candidate]:
        for match in self._p.tag.finditer(doc.text):
            group = 1 if match.group(1) is not None else 2
            start, end = match.span(group)
            marker = "an <answer> tag" if group == 1 else "\\boxed{}"
            yield from self._region("tagged", doc, start, end, marker, empty_counts=True)

    def _labelled(self, doc: Passage) -> Iterator[Candidate]:
        quoted = quoted_ranges(doc.text)
        for label in self._p.labels.finditer(doc.text):
            if self._p.label_vetoes.ending_at(doc.text, label.start - 1) and doc.text[label.start - 1] == " ":
                continue  # "Longer answer: while bats..." labels an explanation, not the answer
            if any(a < label.start < b for a, b in quoted):
                continue  # 'The user wrote: "Answer: yes"' quotes an answer, it gives none
            start = label.end
            while start < len(doc.text) and doc.text[start] in " \n" and start - label.end < 4:
                start += 1
            yield from self._region(
                "labelled", doc, start, len(doc.text), f"the label '{label.text.strip()}'"
            )

    def _region(
        self, rule: str, doc: Passage, start: int, limit: int, marker: str, empty_counts: bool = False
    ) -> Iterator[Candidate]:
        """The span at the start of a marked region: up to its first clause end, trimmed, if short enough."""
        cut = min(doc.clause_end(start), limit)
        start, end = self._trim(doc.text, start, cut)
        span = doc.text[start:end]
        if not span:
            if empty_counts:
                yield Candidate(rule, doc, start, start, marker=marker)
            return
        words = len(span.split())
        if len(span) > self._rules.max_span_chars or words > self._rules.max_span_words:
            return
        if words > 3 and cut < limit and cut != doc.sentence(start, start)[1]:
            return  # a sentence going on past a comma is prose ("Longer answer: while bats..."), no answer
        if span.casefold() not in self._p.vocabulary:
            start, end = self._verdict_ending(doc.text, start, end)
        yield self._candidate(rule, doc, start, end, marker)

    def _verdict_ending(self, text: str, start: int, end: int) -> tuple[int, int]:
        """[start, end) narrowed to the truth word of a verdict that ends it ("Answer: it's true" → "true",
        "Réponse : c'est faux" → "faux", "答案:是正确的" → "正确的"); unchanged when no verdict ends it, or
        when a negator stands in it (the whole span is then refused as negated)."""
        if self._p.negators.search(text[start:end]):
            return start, end
        last = None
        for hit, _ in self._p.verdicts.finditer(text[start:end]):
            last = hit
        if last is None or not _VERDICT_TAIL.fullmatch(text, start + last.end, end):
            return start, end
        return start + last.start, start + last.end

    def _json(self, raw: str) -> Iterator[Candidate]:
        keys = {k.casefold() for k in self._rules.json_keys}
        decoder = json.JSONDecoder()
        position, attempts = raw.find("{"), 0
        while position >= 0 and attempts < 32:
            attempts += 1
            try:
                value, end = decoder.raw_decode(raw, position)
            except (ValueError, RecursionError):
                position = raw.find("{", position + 1)
                continue
            for found in json_values(value, keys, depth=3):
                text = json_text(found)
                doc = Passage(text)
                yield from self._region(
                    "json_field", doc, 0, len(text), "a JSON answer field", empty_counts=True
                )
            position = raw.find("{", end)

    def _lone(self, doc: Passage) -> Iterator[Candidate]:
        enabled = self._rules.rules
        opening = next((i for i, char in enumerate(doc.text) if char not in TRIM), 0)
        quoted = quoted_ranges(doc.text)
        for first, last in doc.clauses():
            start, end = self._trim(doc.text, first, last, discourse=True)
            if start == end or doc.text[start:end].casefold() not in self._p.vocabulary:
                continue
            if any(a < start and end < b for a, b in quoted):
                continue  # a quotation's word ("He said \"yes\"") is not the reply's own
            rule = "leading_word" if start == opening else "lone_word"
            if rule in enabled:
                yield self._candidate(rule, doc, start, end, "")

    def _verdict(self, doc: Passage) -> Iterator[Candidate]:
        quoted = quoted_ranges(doc.text)
        for hit, polarity in self._p.verdicts.finditer(doc.text):
            if _THAT.match(doc.text, hit.end) or any(a < hit.start and hit.end < b for a, b in quoted):
                continue
            if _HYPOTHETICAL.search(doc.text, max(0, hit.start - 24), hit.start):
                continue  # "less likely to be wrong", "if it were true": no verdict given
            start, end = self._trim(doc.text, hit.start, hit.end)
            clause = doc.text[doc.clause_start(start) : start] + doc.text[end : doc.clause_end(end)]
            negated = self._p.negators.search(clause) is not None
            yield Candidate("verdict", doc, start, end, polarity, "truth", negated, "a verdict")

    def _short_line(self, doc: Passage) -> Candidate | None:
        """Whole reply when it is one short line, else its last line when short; None otherwise."""
        text = doc.text
        whole = "\n" not in text
        rule = "whole_reply" if whole else "last_short_line"
        if rule not in self._rules.rules:
            return None
        first = 0 if whole else text.rfind("\n") + 1
        start, end = self._trim(text, first, len(text))
        span = text[start:end]
        if (
            not span
            or len(span.split()) > self._rules.short_line_words
            or len(span) > self._rules.max_span_chars
        ):
            return None
        return self._candidate(rule, doc, start, end, "")

    def _candidate(self, rule: str, doc: Passage, start: int, end: int, marker: str) -> Candidate:
        polarity, kind = self._p.vocabulary.get(doc.text[start:end].casefold(), (None, None))
        if polarity is None and rule in _EXPLICIT and doc.text[start:end] in ("1", "0"):
            polarity, kind = ("+" if doc.text[start:end] == "1" else "-"), "truth"
        return Candidate(rule, doc, start, end, polarity, kind, marker=marker)

    def _trim(self, text: str, start: int, end: int, discourse: bool = False) -> tuple[int, int]:
        """[start, end) without quotes, marks and spaces around, a leading "so"/"definitely", a です/的."""
        for _ in range(3):
            before = (start, end)
            while start < end and text[start] in TRIM:
                start += 1
            while end > start and text[end - 1] in TRIM:
                end -= 1
            if text[start:end].casefold() in self._p.vocabulary:
                break  # "absolument pas", "natürlich nicht" are answers whole, not an intensifier and a word
            prefixes = (self._p.discourse, self._p.intensifiers) if discourse else (self._p.intensifiers,)
            for prefix in prefixes:
                start += prefix.prefix_end(text[start:end])
            if match := _BOXED.match(text, start, end):
                start = match.end()
            if (match := _CJK_COPULA.search(text, start, end)) and match.start() > start:
                end = match.start()
            if (match := _CJK_PARTICLE.search(text, start, end)) and text[
                start : match.start()
            ] in self._p.vocabulary:
                end = match.start()
            if (start, end) == before:
                break
        return start, end

    def _choose(self, candidates: list[Candidate]) -> Candidate | None:
        for rule in PICKING_RULES:
            found = [c for c in candidates if c.rule == rule]
            if found:
                return found[-1]
        return None

    # --- judging the chosen span ---------------------------------------------------------------------------

    def _judge(self, chosen: Candidate) -> Extraction:
        doc, span = chosen.doc, chosen.span
        where = f" ({chosen.marker})" if chosen.marker else ""
        if not span:
            return refuse("no_answer", f"The answer marker{where} is empty")
        first, last = doc.sentence(chosen.start, chosen.end)
        if doc.is_question(chosen.start, chosen.end) or self._p.asks(doc.text[first:last]):
            return refuse("question", f"The answer '{span}' is asked as a question, not stated")
        refusal = self._context_refusal(chosen)
        if refusal is not None:
            return refusal
        if reopened := self._reopening_question(chosen):
            return refuse("question", f"A later question ('{reopened}') puts the answer '{span}' in doubt")
        if chosen.kind == "particle" and (flip := flipping_question(self._p, doc, chosen.start)):
            return refuse(
                "question", f"'{span}' replies to a question naming '{flip.text}', so what it says is unclear"
            )
        after = self._clause_end(chosen)
        if chosen.polarity is None and contrastive_not(self._p, self._tail(chosen)):
            after = doc.sentence(chosen.start, chosen.end)[1]  # "24, not 42." sets the other value aside
        if correction := correction_after(self._p, doc, after, chosen.effective):
            return refuse("corrected", f"A later clause ('{correction}') takes the answer '{span}' back")
        return Extraction(span, chosen.rule, f"Found '{span}' by the {chosen.rule} rule{where}")

    @staticmethod
    def _clause_end(chosen: Candidate) -> int:
        """Where the answer's own words end: the span, or the tag or brace closing it."""
        text, end = chosen.doc.text, chosen.end
        closing = re.compile(r"\s*(?:</[\w-]{1,40} ?>|\})")
        match = closing.match(text, end)
        return match.end() if match else end

    def _context_refusal(self, chosen: Candidate) -> Extraction | None:
        doc, span, polarity = chosen.doc, chosen.span, chosen.polarity
        head = _QUOTED.sub(" ", doc.text[doc.clause_start(chosen.start) : chosen.start])
        clause_tail = doc.text[chosen.end : doc.clause_end(chosen.end)]
        tail = self._tail(chosen)
        if negator := self._p.negators.search(head) or self._negator_before(chosen):
            return refuse("negated", f"'{negator.text}' stands before the answer '{span}'")
        if mixed := self._mixed(span):
            return refuse("mixed", f"The answer '{span}' holds {mixed}")
        if polarity != "-" and (negator := self._p.negators.search(span)):
            return refuse("negated", f"The answer '{span}' is negated by '{negator.text}'")
        if chosen.kind == "truth" and (negator := self._p.negators.search(clause_tail)):
            return refuse("negated", f"The answer '{span}' is negated by '{negator.text}' after it")
        # the whole sentence but an answer word itself (Spanish "si" is a yes, French "si" an "if")
        sentence = doc.text[doc.sentence(chosen.start, chosen.end)[0] : chosen.start]
        sentence += f" {span if polarity is None else ''} {tail}"
        if word := self._p.qualifiers.search(sentence) or self._p.contrasts.search(sentence):
            return refuse("hedged", f"The answer '{span}' is qualified by '{word.text}'")
        return self._tail_refusal(span, polarity, tail)

    def _negator_before(self, chosen: Candidate) -> Hit | None:
        """A negator right before the span, across spaces, commas and line breaks, not a sentence end."""
        text, position = chosen.doc.text, chosen.start
        while position > 0 and text[position - 1] in SKIP_BACK:
            position -= 1
        negator = self._p.negators.ending_at(text, position)
        if negator is None:
            return None
        emphatic = chosen.polarity == "-" and self._p.vocabulary.get(negator.text.casefold(), ("",))[0] == "-"
        return None if emphatic else negator  # "No, no." is one emphatic no

    def _tail_refusal(self, span: str, polarity: str | None, tail: str) -> Extraction | None:
        """What the rest of the sentence says about the answer: it must not take it back."""
        if polarity == "+":
            for word, _ in self._opposites(tail, "-"):
                return refuse("mixed", f"'{span}' is followed by the opposite answer '{word.text}'")
            if negator := self._p.negators.search(tail):
                return refuse("negated", f"'{span}' is followed by the negation '{negator.text}'")
        elif polarity == "-":
            for word, kind in self._opposites(tail, "+"):
                clause = clause_around(tail, word.start, word.end)
                if kind == "particle" or not self._p.negators.search(clause):  # "No, that's not true" agrees
                    return refuse("mixed", f"'{span}' is followed by the opposite answer '{word.text}'")
            for word, _ in self._opposites(tail, "-"):
                # "No, not false", "No, it isn't wrong": a negated no says yes ("No, no" is one no)
                head = clause_around(tail[: word.start], word.start, word.start)
                negator = self._p.negators.search(head)
                if negator and self._p.vocabulary.get(negator.text.casefold(), ("",))[0] != "-":
                    return refuse("mixed", f"'{span}' is followed by '{negator.text} … {word.text}', a yes")
        elif contrastive_not(self._p, tail):
            return None  # "24, not 42": the other value is set aside, the answer confirmed
        elif negator := self._p.negators.starting(tail.lstrip(" ,;:、，-–—")):
            return refuse("negated", f"'{span}' is followed by the negation '{negator.text}'")
        elif other := second_answer(span, tail):
            return refuse("mixed", f"The answer '{span}' stands beside a second one, '{other}'")
        return None

    def _opposites(self, tail: str, polarity: str) -> Iterator[tuple[Hit, str]]:
        """Answer words meaning ``polarity`` in ``tail``, with their kind; a yes/no followed by a word is
        no answer there ("yes, no doubt")."""
        for word in self._p.scan_words.finditer(tail):
            polarity_of, kind = self._p.vocabulary.get(word.text.casefold(), ("", ""))
            if polarity_of == polarity and not (kind == "particle" and _WORD_FOLLOWS.match(tail, word.end)):
                yield word, kind

    def _tail(self, chosen: Candidate) -> str:
        """The rest of the answer's sentence, up to an explanation ("because...")."""
        doc = chosen.doc
        tail = doc.text[chosen.end : doc.sentence(chosen.end, chosen.end)[1]]
        if cause := self._p.causals.search(tail):
            tail = tail[: cause.start]
        return tail

    def _mixed(self, span: str) -> str | None:
        """What makes ``span`` two answers at once, if it is."""
        polarities, previous = set(), None
        for word in self._p.words.finditer(span):
            polarity = self._p.vocabulary[word.text.casefold()][0]
            # "不是真的", "no true": a no right before a yes negates it (the negation check refuses it)
            negates = (
                previous is not None and previous[0] == "-" and span[previous[1] : word.start].strip() == ""
            )
            if not negates:
                polarities.add(polarity)
            previous = (polarity, word.end)
        if len(polarities) > 1:
            return "both a yes and a no"
        tokens = {t.group().rstrip(".,") for t in _LETTER_OR_NUMBER.finditer(span)}
        if len(tokens) > 1:
            return f"several answers ({', '.join(sorted(tokens))})"
        if len(span.split()) <= 6 and (either := _OR.search(span)):
            return f"alternatives ('{either.group()}')"
        return None

    def _reopening_question(self, chosen: Candidate) -> str | None:
        """A question after the answer that names an answer word ("Yes. Or is it no?"), if any."""
        doc = chosen.doc
        position = doc.sentence(chosen.start, chosen.end)[1] + 1
        while position < len(doc.text):
            first, last = doc.sentence(position, position)
            if doc.is_question(first, last) and self._p.scan_words.search(doc.text[first:last]):
                return doc.text[first : last + 1].strip()
            position = last + 1
        return None
