"""Reading a model judge's chat-completions reply, strictly: a judgement, or why there is none.

Fails closed. Anything but one well-formed verdict object is :class:`InvalidJudgementError` (the grader's
``invalid_judgement``): a body that is not JSON, no message, a refusal, a reply cut at ``max_tokens``,
content that is not exactly one JSON object (prose around it, two objects), duplicate or unknown keys,
a missing or mistyped field, a score outside [0, 1], a label outside the set, and a verdict that
contradicts its own score. Nothing here guesses what a judge "meant".
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ChatReply",
    "InvalidJudgementError",
    "Judgement",
    "TokenCounts",
    "read_chat",
    "read_label",
    "read_object",
    "read_rubric",
]

_EXCERPT_CHARS = 200
_FENCED = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\r?\n(.*?)\r?\n?[ \t]*```", re.DOTALL)


class InvalidJudgementError(Exception):
    """The reply holds no usable judgement; the message says why, in a sentence a user can act on."""


@dataclass(frozen=True, slots=True)
class TokenCounts:
    """Tokens the judge reported using (``None`` when the reply did not say)."""

    prompt: int | None = None
    completion: int | None = None
    total: int | None = None

    def as_dict(self) -> dict[str, int | None]:
        """The counts as stored in details."""
        return {"prompt": self.prompt, "completion": self.completion, "total": self.total}


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatReply:
    """What a chat-completions reply says, before its content is trusted."""

    content: str | None
    finish_reason: str | None
    refusal: str | None
    model: str | None
    tokens: TokenCounts


@dataclass(frozen=True, slots=True, kw_only=True)
class Judgement:
    """A verdict the judge gave and that holds together."""

    passed: bool
    score: float
    explanation: str
    label: str | None = None


def _excerpt(text: str) -> str:
    return repr(text if len(text) <= _EXCERPT_CHARS else text[:_EXCERPT_CHARS] + "…")


def _count(value: Any) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _tokens(usage: Any) -> TokenCounts:
    if not isinstance(usage, dict):
        return TokenCounts()
    return TokenCounts(
        _count(usage.get("prompt_tokens")),
        _count(usage.get("completion_tokens")),
        _count(usage.get("total_tokens")),
    )


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key '{key}' appears twice")
        found[key] = value
    return found


def _loads(text: str) -> Any:
    """Strict JSON: no NaN or Infinity, no key twice (Python's json would keep the last one silently)."""
    return json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)


def read_chat(body: bytes) -> ChatReply:
    """The first choice of a chat-completions body; :class:`InvalidJudgementError` when there is none."""
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        text = body.decode(errors="replace")
        raise InvalidJudgementError(f"the judge's reply is not JSON: {_excerpt(text)}") from None
    choices = document.get("choices") if isinstance(document, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    if not isinstance(first, dict) or not isinstance(message, dict):
        raise InvalidJudgementError("the judge's reply has no choices[0].message")
    content, refusal = message.get("content"), message.get("refusal")
    finish_reason, model = first.get("finish_reason"), document.get("model")
    return ChatReply(
        content=content if isinstance(content, str) else None,
        finish_reason=finish_reason if isinstance(finish_reason, str) else None,
        refusal=refusal if isinstance(refusal, str) and refusal.strip() else None,
        model=model if isinstance(model, str) else None,
        tokens=_tokens(document.get("usage")),
    )


def read_object(reply: ChatReply) -> dict[str, Any]:
    """The one JSON object the reply's content is (alone, or alone in one fenced code block)."""
    if reply.refusal is not None:
        raise InvalidJudgementError(f"the judge refused: {_excerpt(reply.refusal)}")
    if reply.finish_reason == "length":
        raise InvalidJudgementError("the judge's reply was cut at max_tokens (finish_reason 'length')")
    if reply.finish_reason == "content_filter":
        raise InvalidJudgementError("the judge's reply was withheld by a content filter")
    content = reply.content
    if content is None or not content.strip():
        raise InvalidJudgementError("the judge's reply has no content")
    text = content.strip()
    fenced = _FENCED.fullmatch(text)
    if fenced is not None:
        text = fenced.group(1).strip()
    try:
        verdict = _loads(text)
    except RecursionError:
        raise InvalidJudgementError("the judge's reply nests too deep") from None
    except ValueError as exc:
        raise InvalidJudgementError(
            f"the judge's reply is not one JSON object ({exc}): {_excerpt(content)}"
        ) from None
    if not isinstance(verdict, dict):
        raise InvalidJudgementError(f"the judge's reply is JSON but not an object: {_excerpt(content)}")
    return verdict


def _keys(verdict: dict[str, Any], wanted: Sequence[str]) -> None:
    unknown = sorted(set(verdict) - set(wanted))
    if unknown:
        names = ", ".join(f"'{key}'" for key in unknown)
        raise InvalidJudgementError(
            f"the judgement has unexpected key(s) {names} (expected {', '.join(wanted)})"
        )
    missing = [key for key in wanted if key not in verdict]
    if missing:
        raise InvalidJudgementError(f"the judgement lacks {', '.join(repr(key) for key in missing)}")


def _explanation(verdict: dict[str, Any]) -> str:
    explanation = verdict["explanation"]
    if not isinstance(explanation, str):
        raise InvalidJudgementError(f"'explanation' must be a string, got {json.dumps(explanation)[:60]}")
    return explanation


def read_rubric(verdict: dict[str, Any], threshold: float) -> Judgement:
    """A rubric judgement: ``pass`` a boolean and ``score`` in [0, 1] that agree about ``threshold``."""
    _keys(verdict, ("explanation", "pass", "score"))
    passed, score = verdict["pass"], verdict["score"]
    explanation = _explanation(verdict)
    if type(passed) is not bool:
        raise InvalidJudgementError(f"'pass' must be true or false, got {json.dumps(passed)[:60]}")
    if type(score) not in (int, float) or not math.isfinite(score) or not 0 <= score <= 1:
        raise InvalidJudgementError(f"'score' must be a number from 0 to 1, got {json.dumps(score)[:60]}")
    score = float(score)
    if passed and score < threshold:
        raise InvalidJudgementError(
            f"the judgement contradicts itself: pass is true but the score {score:g} is below the "
            f"threshold {threshold:g}"
        )
    if not passed and score >= threshold:
        raise InvalidJudgementError(
            f"the judgement contradicts itself: pass is false but the score {score:g} reaches the "
            f"threshold {threshold:g}"
        )
    return Judgement(passed=passed, score=score, explanation=explanation)


def read_label(verdict: dict[str, Any], labels: Sequence[str], pass_labels: Sequence[str]) -> Judgement:
    """A classification: ``label`` exactly one of ``labels``; it passes when it is one of ``pass_labels``."""
    _keys(verdict, ("explanation", "label"))
    label = verdict["label"]
    explanation = _explanation(verdict)
    if not isinstance(label, str):
        raise InvalidJudgementError(f"'label' must be a string, got {json.dumps(label)[:60]}")
    if label not in labels:
        raise InvalidJudgementError(
            f"the judge's label {_excerpt(label)} is not one of {', '.join(repr(x) for x in labels)}"
        )
    passed = label in pass_labels
    return Judgement(passed=passed, score=1.0 if passed else 0.0, explanation=explanation, label=label)
