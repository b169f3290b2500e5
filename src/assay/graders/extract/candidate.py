"""A possible answer found in a reply (:class:`Candidate`), and the refusal when candidates disagree."""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.graders.extract.rules import Extraction
from assay.graders.extract.view import Passage

__all__ = ["EXPLICIT", "Candidate", "conflict_among", "refuse"]

EXPLICIT = frozenset({"tagged", "json_field", "labelled"})
"""The rules whose candidates the reply marks as its answer."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One possible answer: where it is, which rule found it, the boolean it names if any."""

    rule: str
    doc: Passage
    start: int
    end: int
    polarity: str | None = None
    """"+" or "-" when the span is exactly an answer word, else None."""
    kind: str | None = None
    """"particle" (yes/no) or "truth" (true/correct/false...) for an answer word."""
    negated: bool = False
    """For verdicts: a negator in its clause, so it reads as the opposite boolean."""
    marker: str = field(default="", compare=False)

    @property
    def span(self) -> str:
        return self.doc.text[self.start : self.end]

    @property
    def effective(self) -> str | None:
        if self.polarity is None or not self.negated:
            return self.polarity
        return "-" if self.polarity == "+" else "+"


def refuse(rule: str, reason: str) -> Extraction:
    return Extraction(None, rule, reason)


def conflict_among(candidates: list[Candidate]) -> Extraction | None:
    """A refusal when two explicit answers differ or two candidates name opposite booleans."""
    explicit: dict[str, Candidate] = {}
    for c in candidates:
        if c.rule in EXPLICIT:
            explicit.setdefault(c.polarity or " ".join(c.span.casefold().split()), c)
    booleans: dict[str, Candidate] = {}
    for c in candidates:
        if c.effective is not None:
            booleans.setdefault(c.effective, c)
    for found in (explicit, booleans):
        if len(found) > 1:
            first, second = list(found.values())[:2]
            return refuse(
                "conflicting_candidates",
                f"The reply gives two different answers: '{first.span}' ({first.rule}) "
                f"and '{second.span}' ({second.rule})",
            )
    return None
