"""What stands around an answer and takes it back: a later correction, a second answer beside it, an echoed
question that flips a yes or no, a quotation holding it. Pure functions over a normalised view."""

from __future__ import annotations

import re

from assay.graders.extract.patterns import Hit, Patterns
from assay.graders.extract.view import TRIM, Passage

__all__ = ["contrastive_not", "correction_after", "flipping_question", "quoted_ranges", "second_answer"]

_CLAUSE_OPENERS = frozenset(".!?;:,—–-\n(。、，；：！？")
_RIGHT = (
    "right|correct|actual|real|true|final|corrected|bonne|vraie|richtige|korrekte|tatsächliche|correcta"
    "|correcto|verdadera|correta|certa|certo|giusta|giusto|corretta|правильный|верный|正确|正しい"
)
_RESTATED = re.compile(
    rf"(?i)(?<!\w)(?:{_RIGHT})(?: \w+){{0,3}}(?:[ :=]+\d| (?:is|was|would be|est|ist|es|é|è|это)[ :]+\S)"
    r"|(?<!\w)(?:should|must|ought to|sollte|devrait|debería|dovrebbe|deveria)(?: \w+){0,3}[ :=]+[+-]?\d"
)
"""A later sentence restating the answer ("so the right total is 48"): a second, correcting answer."""
_JOINER = re.compile(r"(?i)^[ ]?(?:[,;/&+]|(?:and|or|y|o|et|ou|und|oder|e|и|или|und|bzw\.?)(?!\w))")
_VALUE = re.compile(r"(?<![\w.,])[+-]?\d+(?:[.,]\d+)?(?![\w])|(?-i:(?<![\w'])[A-J](?![\w']))")
_WORD_FOLLOWS = re.compile(r" \w")
_QUOTED = re.compile(
    '"[^"\n]{1,200}"|“[^”\n]{1,200}”|«[^»\n]{1,200}»|„[^“”\n]{1,200}[“”]|「[^」\n]{1,200}」'
    "|(?<![\\w'])'[^'\n]{1,200}'(?![\\w'])"
)


def _opens_clause(text: str, start: int) -> bool:
    """Whether only spaces stand between ``start`` and the previous clause mark (or the text's start)."""
    position = start
    while position > 0 and text[position - 1] in " \t*_\"'«»“”":
        position -= 1
    return position == 0 or text[position - 1] in _CLAUSE_OPENERS


def correction_after(p: Patterns, doc: Passage, end: int, polarity: str | None) -> str | None:
    """The words of a later clause that take the answer ending at ``end`` back ("Wait, no", "Actually, C",
    "just kidding", "correction:", "Not."), or restate it ("the right total is 48"), if any."""
    text = doc.text
    rest = text[end:]
    for hit in p.corrections.finditer(rest):
        if not _opens_clause(text, end + hit.start):
            continue
        if polarity == "-" and p.negators.search(hit.text):
            continue  # "No. Not at all." agrees with a no
        if hit.text.casefold() in _TAKING_BACK or _names_answer(p, text, end + hit.end):
            return hit.text
    if polarity != "-":
        for word in p.scan_words.finditer(rest):
            found = p.vocabulary.get(word.text.casefold())
            if found and found[0] == "-" and found[1] == "particle" and _opens_clause(text, end + word.start):
                after = rest[word.end : word.end + 2].lstrip(" ")
                if not after or after[:1] in (",", "!", ".", "-", "—", "–"):
                    return word.text  # "Answer: A. No, C."; a yes then "No, ..." is a conflict anyway
    if restated := _RESTATED.search(rest):
        return restated.group().strip()
    return None


def _split(words: str) -> frozenset[str]:
    return frozenset(words.split("|"))


_TAKING_BACK = _split(
    "wait|no wait|wait no|correction|on second thought|on second thoughts|just kidding|jk|"
    "scratch that|never mind|let me recheck|let me reconsider|not|nope|attends|attendez|"
    "je plaisante|non attends|à la réflexion|warte|korrektur|nur ein scherz|war nur spaß|"
    "espera|corrección|es broma|era broma|pensándolo bien|aspetta|correzione|scherzo|scherzavo|"
    "ripensandoci|correção|brincadeira|é brincadeira|pensando bem|подождите|подожди|поправка|"
    "шучу|待って|訂正|冗談|等等|不对|更正|开玩笑"
)
"""Corrections that take an answer back by themselves; the others ("actually", "but", "however") do when
the rest of their sentence names another answer, or is only a few words ("Actually, C.")."""


def _names_answer(p: Patterns, text: str, start: int) -> bool:
    """Whether the sentence from ``start`` names an answer: a value, an answer word, or is a few words."""
    end = start
    while end < len(text) and text[end] not in ".!?\n。":
        end += 1
    rest = text[start:end].strip(TRIM)
    if len(rest.split()) <= 3 or _VALUE.search(rest):
        return True
    for word in p.scan_words.finditer(rest):  # a yes/no followed by a word is none ("no evidence")
        kind = p.vocabulary.get(word.text.casefold(), ("", ""))[1]
        if kind == "truth" or not _WORD_FOLLOWS.match(rest, word.end):
            return True
    return False


def contrastive_not(p: Patterns, tail: str) -> bool:
    """Whether ``tail`` (after a value) is only "not <another value>", which confirms it ("24, not 42")."""
    stripped = tail.lstrip(" ,;:—–-")
    negator = p.negators.starting(stripped)
    if negator is None or negator.text.casefold() in p.vocabulary:
        return False  # "no" is an answer word: "B — no wait, D" corrects, it does not set D aside
    other = stripped[negator.end :].strip(TRIM)
    return bool(other) and len(other.split()) <= 3


def second_answer(span: str, tail: str) -> str | None:
    """A second answer beside the span in its sentence ("Answer: A, B", "42; some sources say 43",
    "Paris, Lyon"), if any."""
    values = {v.group() for v in _VALUE.finditer(span)}
    for other in _VALUE.finditer(tail):
        if values and other.group() not in values:
            return other.group()
    joined = _JOINER.match(tail)
    if joined is None:
        return None
    item = re.split(r"[,;.!?\n]", tail[joined.end() :].strip(), maxsplit=1)[0].strip(TRIM)
    if item and len(item.split()) <= 2:
        return item
    return None


def flipping_question(p: Patterns, doc: Passage, start: int) -> Hit | None:
    """The truth word or negator of an echoed question right before a yes/no at ``start`` ("Is it false?
    No." — a no to a negative question says neither plainly), if any."""
    first = doc.sentence(start, start)[0]
    if first < 2:
        return None
    before_first, before_last = doc.sentence(first - 2, first - 2)
    if not doc.is_question(before_first, before_last):
        return None
    question = doc.text[before_first:before_last]
    for word in p.scan_words.finditer(question):
        found = p.vocabulary.get(word.text.casefold())
        if found and found[1] == "truth":
            return word
    return p.negators.search(question)


def quoted_ranges(text: str) -> list[tuple[int, int]]:
    """Quotations inside a line ("He said \\"yes\\""), not a line that is only a quoted answer."""
    ranges = []
    for match in _QUOTED.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        line_end = len(text) if line_end < 0 else line_end
        if text[line_start : match.start()].strip(TRIM) or text[match.end() : line_end].strip(TRIM):
            ranges.append(match.span())
    return ranges
