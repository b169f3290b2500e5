"""What an agent's reply says it spent: tokens in and out, and the model that spent them.

OpenAI-compatible replies carry ``usage`` (``prompt_tokens``/``completion_tokens``; the Responses and
Anthropic APIs say ``input_tokens``/``output_tokens``) and ``model``; an HTTP target reads them at its
``usage_path``. A target notes what it read (:func:`note_usage`) inside the call; :class:`~assay.targets.
base.Target` collects the last note of a case's successful attempt (:func:`collecting_usage`), so no
target's ``call`` changes shape. A reply that says nothing leaves the usage unknown, never zero.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from assay.json_types import JsonObject

MAX_TOKENS = 10**12
"""A count past this is not believed (a reply cannot have spent it)."""
MAX_MODEL_CHARS = 200


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a reply spent, and the model that spent them when the reply says."""

    input_tokens: int
    output_tokens: int
    model: str | None = None


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKENS:
        return None
    return value


def read_usage(usage: object, *, model: object = None) -> Usage | None:
    """The usage an OpenAI-, Responses- or Anthropic-style ``usage`` object states; ``None`` when it states no
    token count (a missing count of the two is read as 0 only when the other is given)."""
    if not isinstance(usage, Mapping):
        return None
    spent_in = _count(usage.get("prompt_tokens", usage.get("input_tokens")))
    spent_out = _count(usage.get("completion_tokens", usage.get("output_tokens")))
    if spent_in is None and spent_out is None:
        return None
    name = model if isinstance(model, str) and 0 < len(model) <= MAX_MODEL_CHARS else None
    return Usage(spent_in or 0, spent_out or 0, name)


_NOTED: ContextVar[list[Usage] | None] = ContextVar("assay_usage", default=None)


def note_usage(usage: Usage | None) -> None:
    """Record what the reply being read spent (kept only inside :func:`collecting_usage`)."""
    noted = _NOTED.get()
    if noted is not None and usage is not None:
        noted.append(usage)


@contextmanager
def collecting_usage() -> Iterator[list[Usage]]:
    """The usages noted by the calls made inside the block, in order."""
    noted: list[Usage] = []
    token = _NOTED.set(noted)
    try:
        yield noted
    finally:
        _NOTED.reset(token)


def read_reply_usage(body: bytes, *, model: object = None) -> Usage | None:
    """The usage an OpenAI-compatible reply body states (a model judge's), its model the reply's own, else
    ``model`` (the one asked for); ``None`` when the body is not JSON or states no token count."""
    import orjson  # here: a run whose grader makes no call never reads a reply body

    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(document, Mapping):
        return None
    return read_usage(document.get("usage"), model=document.get("model") or model)


@dataclass(frozen=True, slots=True)
class JudgeSpend:
    """What the calls grading one case (a model judge's, each judge of a composite) said they spent.

    ``usages`` holds the calls whose reply stated its tokens; ``unknown_calls`` the others (a failed call or a
    reply that said nothing): with any of those the case's judge tokens are unknown, never a smaller count.
    """

    usages: tuple[Usage, ...] = ()
    unknown_calls: int = 0

    @property
    def calls(self) -> int:
        """Calls made."""
        return len(self.usages) + self.unknown_calls

    @property
    def known(self) -> bool:
        """Whether every call said what it spent."""
        return self.unknown_calls == 0

    @property
    def input_tokens(self) -> int | None:
        """Input tokens of every call (``None``: some call did not say)."""
        return sum(usage.input_tokens for usage in self.usages) if self.known else None

    @property
    def output_tokens(self) -> int | None:
        """Output tokens of every call (``None``: some call did not say)."""
        return sum(usage.output_tokens for usage in self.usages) if self.known else None

    def as_record(self) -> JsonObject:
        """The JSON form stored with a result and written to a results file."""
        return {
            "calls": [[usage.model, usage.input_tokens, usage.output_tokens] for usage in self.usages],
            "unknown_calls": self.unknown_calls,
        }

    @classmethod
    def of_record(cls, record: object) -> JudgeSpend | None:
        """The spend :meth:`as_record` stored (``None`` for anything else: not recorded)."""
        if not isinstance(record, Mapping):
            return None
        unknown, calls = record.get("unknown_calls"), record.get("calls")
        if not isinstance(calls, list) or _count(unknown) is None:
            return None
        usages: list[Usage] = []
        for call in calls:
            if not isinstance(call, list) or len(call) != 3:
                return None
            model, spent_in, spent_out = call
            if spent_in is None or _count(spent_in) is None or _count(spent_out) is None:
                return None
            usages.append(Usage(spent_in, spent_out, model if isinstance(model, str) else None))
        return cls(tuple(usages), unknown or 0)
