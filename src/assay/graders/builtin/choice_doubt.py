"""Why the one label a choice answer names is not its stated choice: asked ("B?") or taken back or doubted
by a later label ("B. No, C.", "B. Though A is defensible"). See docs/choice.md, rule 6."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from assay.graders.reading.text import excerpt

__all__ = ["Mention", "doubt_of"]


class Mention(Protocol):
    """A label standing as a token in the answer (the choice grader's ``_Mention``)."""

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...

    @property
    def label(self) -> str: ...


_ASKED = re.compile(r"[ \t)\]}*_`\"'”’»]*[?¿？]")
"""A question mark right after a label: "B?" asks, it does not choose."""
_CORRECTION = re.compile(
    r"(?<!\w)(?:no|wait|actually|i mean|correction|rather|sorry|scratch that|on second thought|just kidding"
    r"|though|although|however|but|alternatively|or|also|too|non|nein|doch|eigentlich|en fait|plutôt|pardon"
    r"|perdón|mejor dicho|en realidad|pero|mais|aber|sin embargo|cependant|jedoch|anzi|invece|però|ma|ou|oder"
    r"|o|não|ou melhor|na verdade|нет|или|не)(?!\w)|[?？]"
)
"""Words that take back or doubt a choice when another label follows them ("B. No, C.", "B. Though A...")."""


def doubt_of(text: str, mentions: Sequence[Mention], label: str) -> str | None:
    """Why the one label read is not a stated choice: asked, or followed by a correction naming another."""
    chosen = [mention for mention in mentions if mention.label == label]
    for mention in chosen:
        if _ASKED.match(text, mention.end):
            return f"Response asks {excerpt(label, 20)} as a question rather than choosing it"
    last = chosen[-1].end if chosen else 0
    for mention in mentions:
        if mention.start >= last and mention.label != label:
            correction = _CORRECTION.search(text[last : mention.start].lower())
            if correction is not None:
                return (
                    f"Response takes back or doubts its choice: {excerpt(correction.group(), 20)} then "
                    f"{excerpt(mention.label, 20)} after {excerpt(label, 20)}"
                )
    return None
