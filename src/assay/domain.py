"""Plain domain records and vocabulary shared by the layers (no ORM, no API schema)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from assay.json_types import JsonObject

if TYPE_CHECKING:  # pydantic (the messages' record) is loaded only when a case holds a chat
    from assay.chat import Message


MAX_REPEATS = 100
"""Most times a run may ask each case (``repeats``): enough for pass@k and flakiness, not a way to multiply a
suite's size without bound."""


@dataclass(frozen=True, slots=True)
class GraderSpec:
    """What graded a result: a grader id, its effective config and its version; never a live object."""

    grader_id: str
    config: JsonObject = field(default_factory=dict)
    version: str = ""

    def as_dict(self) -> JsonObject:
        """The JSON form stored with an evaluation."""
        return {"grader_id": self.grader_id, "config": self.config, "version": self.version}


@dataclass(frozen=True, slots=True)
class Assertion:
    """One assertion as given (``name`` ``None`` when the user gave none: results then use the grader id)."""

    grader_id: str
    config: JsonObject
    expected_output: str | None = None
    weight: float = 1.0
    name: str | None = None

    def as_json(self) -> JsonObject:
        """The assertion as a file or the API writes it (only what was given beyond the grader id)."""
        spec: JsonObject = {"grader_id": self.grader_id}
        if self.config:
            spec["config"] = self.config
        if self.expected_output is not None:
            spec["expected_output"] = self.expected_output
        if self.weight != 1:
            spec["weight"] = self.weight
        if self.name is not None:
            spec["name"] = self.name
        return spec


@dataclass(frozen=True, slots=True)
class Assertions:
    """A list of assertions and its threshold (``None``: every one must pass).

    A case's own may hold a ``threshold`` and no items: the threshold then applies to the list a rule or
    the suite's defaults give it. ``key`` is the canonical JSON, which names the built grader.
    """

    items: tuple[Assertion, ...]
    threshold: float | None
    key: str

    @classmethod
    def of(cls, items: Sequence[Assertion], threshold: float | None) -> Assertions:
        """The list, its key computed."""
        made = cls(tuple(items), threshold, "")
        key = json.dumps(made.as_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        object.__setattr__(made, "key", key)
        return made

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> Assertions:
        """The list :meth:`as_json` wrote (or a checked one: see ``read_assertions``); not checked again."""
        items = [
            Assertion(
                spec["grader_id"],
                dict(spec.get("config") or {}),
                spec.get("expected_output"),
                float(spec.get("weight", 1)),
                spec.get("name"),
            )
            for spec in stored.get("assert") or ()
        ]
        threshold = stored.get("threshold")
        return cls.of(items, float(threshold) if threshold is not None else None)

    def as_json(self) -> JsonObject:
        """``{"assert": [...], "threshold": t}`` (threshold left out when there is none), as stored."""
        stored: JsonObject = {"assert": [item.as_json() for item in self.items]}
        if self.threshold is not None:
            stored["threshold"] = self.threshold
        return stored

    @property
    def names(self) -> tuple[str, ...]:
        """Each assertion's name: its own, else its grader id; made unique with ``#2``, ``#3``..."""
        taken = {item.name for item in self.items if item.name is not None}
        names: list[str] = []
        for item in self.items:
            if item.name is not None:
                names.append(item.name)
                continue
            name, count = item.grader_id, 1
            while name in taken:
                count += 1
                name = f"{item.grader_id}#{count}"
            taken.add(name)
            names.append(name)
        return tuple(names)

    def with_threshold(self, threshold: float | None) -> Assertions:
        """These assertions under another threshold (a case's own, over a list a rule gave it)."""
        return (
            self if threshold is None or threshold == self.threshold else Assertions.of(self.items, threshold)
        )


@dataclass(frozen=True, slots=True)
class AssertionRule:
    """Cases whose metadata hold every ``when`` key with an equal value get ``assertions``."""

    when: JsonObject
    assertions: Assertions

    def matches(self, metadata: Mapping[str, Any]) -> bool:
        """Whether a case with this metadata is one the rule is for."""
        for name, value in self.when.items():
            if name not in metadata:
                return False
            found = metadata[name]
            # true == 1 in Python: a rule for the string or number 1 must not take a boolean
            if found != value or isinstance(found, bool) is not isinstance(value, bool):
                return False
        return True

    def as_json(self) -> JsonObject:
        """The rule as stored and written: ``{"when", "assert", "threshold"?}``."""
        return {"when": self.when, **self.assertions.as_json()}


@dataclass(frozen=True, slots=True)
class SuiteAssertions:
    """A suite's default assertions and its rules by metadata, for cases that carry no list of their own."""

    defaults: Assertions | None
    rules: tuple[AssertionRule, ...]

    def for_case(self, own: Assertions | None, metadata: Mapping[str, Any]) -> Assertions | None:
        """The case's assertions: its own, else the first rule's that matches it, else the suite's defaults,
        else ``None`` (the evaluation's grader); a case's own threshold applies to a list it is given."""
        if own is not None and own.items:
            return own
        picked = self.defaults
        for rule in self.rules:
            if rule.matches(metadata):
                picked = rule.assertions
                break
        if picked is None:
            return None
        return picked.with_threshold(own.threshold) if own is not None else picked

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> SuiteAssertions:
        """The defaults and rules :meth:`as_json` wrote (checked when they were given)."""
        defaults = Assertions.from_json(stored) if stored.get("assert") else None
        rules = tuple(
            AssertionRule(dict(rule["when"]), Assertions.from_json(rule))
            for rule in stored.get("rules") or ()
        )
        return cls(defaults, rules)

    def as_json(self) -> JsonObject:
        """``{"assert"?, "threshold"?, "rules"?}``, as stored with a suite."""
        stored: JsonObject = self.defaults.as_json() if self.defaults is not None else {}
        if self.rules:
            stored["rules"] = [rule.as_json() for rule in self.rules]
        return stored

    @property
    def empty(self) -> bool:
        """Whether the suite gives no case any assertion."""
        return self.defaults is None and not self.rules


class _TurnsDecide:
    """The type of :data:`TURNS_DECIDE`."""

    def __repr__(self) -> str:
        return "TURNS_DECIDE"


TURNS_DECIDE = _TurnsDecide()
"""The expected output of a multi-turn case that gives none (and no assertions of its own): its turns alone
decide it, and nothing checks its last reply (what the preflight skips)."""
MAX_TURNS = 50
"""Scripted user turns in one multi-turn case (docs/conversations.md)."""
DEFAULT_CONVERSATION_SECONDS = 300.0
"""How long a multi-turn case may take, all its turns together, unless it says otherwise."""
MAX_CONVERSATION_SECONDS = 3600.0
"""The most a multi-turn case may ask for."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One scripted user message of a multi-turn case, and the assertions its reply must pass (``None``:
    none: the turn only moves the conversation on)."""

    content: str
    assertions: Assertions | None = None

    def as_json(self) -> JsonObject:
        """``{"content", "assert"?, "threshold"?}``, as files and the API write it."""
        stored: JsonObject = {"content": self.content}
        if self.assertions is not None:
            stored.update(self.assertions.as_json())
        return stored


@dataclass(frozen=True, slots=True)
class Conversation:
    """A case's chat: the messages sent as its input (``messages``) and the scripted user turns sent after
    them one by one (``turns``), each carrying the history the agent produced (docs/conversations.md)."""

    messages: tuple[Message, ...] = ()
    turns: tuple[Turn, ...] = ()
    stop_at_first_failure: bool = False
    """End the case at the first turn whose assertions fail (its later turns are not sent)."""
    max_seconds: float = DEFAULT_CONVERSATION_SECONDS
    """The bound on the time of all its turns together; past it the case ends as a timeout."""

    @staticmethod
    def turns_decide(stored: Mapping[str, Any] | None, expected_output: str) -> bool:
        """Whether a stored case (its ``conversation`` column and expected output) is decided by its turns
        alone, unless assertions reach it (see :data:`TURNS_DECIDE`)."""
        return bool(stored and stored.get("turns")) and expected_output == ""

    @property
    def text(self) -> str:
        """The case's input as text for people: the messages' transcript, else the first turn's text."""
        if self.messages:
            from assay.chat import transcript

            return transcript(self.messages)
        return self.turns[0].content if self.turns else ""

    def input_json(self) -> list[JsonObject]:
        """The messages as a file's or the API's ``input`` (OpenAI's chat format)."""
        return [message.as_openai() for message in self.messages]

    def as_json(self) -> JsonObject:
        """``{"messages"?, "turns"?}``: the stored form (read back by :meth:`from_json`)."""
        stored: JsonObject = {}
        if self.messages:
            stored["messages"] = [*self.input_json()]
        if self.turns:
            stored["turns"] = [turn.as_json() for turn in self.turns]
        if self.stop_at_first_failure:
            stored["stop_at_first_failure"] = True
        if self.max_seconds != DEFAULT_CONVERSATION_SECONDS:
            stored["max_seconds"] = self.max_seconds
        return stored

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> Conversation:
        """The conversation :meth:`as_json` wrote (checked when it was given)."""
        from assay.chat import read_messages

        messages = read_messages(stored["messages"]) if stored.get("messages") else ()
        turns = tuple(
            Turn(
                turn["content"],
                Assertions.from_json(turn) if "assert" in turn or "threshold" in turn else None,
            )
            for turn in stored.get("turns") or ()
        )
        return cls(
            messages,
            turns,
            bool(stored.get("stop_at_first_failure", False)),
            float(stored.get("max_seconds", DEFAULT_CONVERSATION_SECONDS)),
        )


@dataclass(frozen=True, slots=True)
class NewCase:
    """A case to add to a suite: what the agent is asked, what it should answer, anything else known.

    ``key`` is the user's own name for the case (a file's ``id`` or ``key`` field), unique in its suite; in
    a suite either every case has one or none has.
    """

    input: str
    expected_output: str
    metadata: JsonObject = field(default_factory=dict)
    key: str | None = None
    assertions: Assertions | None = None
    """The case's own assertions (and/or threshold), docs/assertions.md; ``None``: it says nothing."""
    conversation: Conversation | None = None
    """Chat messages as its input and/or scripted turns (``input`` is then their text for people)."""


@dataclass(frozen=True, slots=True)
class Case:
    """A stored case. ``number`` (its 1-based place in the suite) and ``key`` are how users name it."""

    id: int
    suite_id: int
    position: int
    input: str
    expected_output: str
    metadata: JsonObject
    key: str | None = None
    assertions: Assertions | None = None
    conversation: Conversation | None = None

    @property
    def number(self) -> int:
        """The case's place in its suite, from 1: the number every surface shows."""
        return self.position + 1


class EvaluationStatus(StrEnum):
    """Where an evaluation is in its life: ``pending → running → completed | failed | cancelled``."""

    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def is_terminal(self) -> bool:
        """Whether the evaluation will not change any more."""
        return self in _TERMINAL


_TERMINAL = frozenset({EvaluationStatus.COMPLETED, EvaluationStatus.FAILED, EvaluationStatus.CANCELLED})
UNFINISHED: tuple[EvaluationStatus, ...] = tuple(
    status for status in EvaluationStatus if not status.is_terminal
)
"""The statuses of an evaluation that still runs or will: the one place this set is written."""


class Outcome(StrEnum):
    """Result filters: ``failed`` is every case not passed (graded and failed, or a target error), as in the
    summary's ``failed`` count; ``error`` only the target errors; ``invalid`` an invalid response/expected."""

    PASSED = "passed"
    FAILED = "failed"
    INVALID = "invalid"
    ERROR = "error"


class ResultSort(StrEnum):
    """Result orderings; a leading ``-`` in the query means descending."""

    NUMBER = "number"
    SCORE = "score"
    LATENCY_MS = "latency_ms"


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a listing and the size of the whole listing."""

    items: list[T]
    total: int


def within_budget(items: Iterable[T], size: Callable[[T], int], max_bytes: int) -> list[T]:
    """The first ``items`` whose ``size`` adds up to at most ``max_bytes``, and always the first one: the
    page-size budget (``ASSAY_MAX_RESULTS_PAGE_BYTES``) every paged listing of answers keeps to."""
    kept: list[T] = []
    used = 0
    for item in items:
        used += size(item)
        if kept and used > max_bytes:
            break
        kept.append(item)
    return kept
