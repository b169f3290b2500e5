"""Inputs a grader must survive: Hypothesis strategies of any answer, and the fixed odd values that every
property over graders also tries as explicit ``@example``s (so that each is checked on every run, in every
profile, not only when the generator happens to draw it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

from hypothesis import strategies as st

from assay.graders.contract.reply import AgentReply
from assay.graders.trajectory.record import Step, ToolCall, Trajectory

T = TypeVar("T")

ALIASES = ["true", "false", "yes", "no", "1", "0", "TRUE", "No", "maybe", ""]
"""Words the true-false grader reads, some of them, and some it does not."""

whitespace = st.text(alphabet=" \t\n\r\u00a0\u2003\u3000", max_size=4)
"""Padding: ASCII and Unicode spaces."""

anything: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(),  # includes lone surrogates and NUL
    st.sampled_from(ALIASES),
    st.builds(lambda a, w1, w2: w1 + a + w2, st.sampled_from(ALIASES), whitespace, whitespace),
    st.lists(st.integers(), max_size=3),
    st.binary(max_size=8),
)
"""Any value an agent's answer or a case's expected output could be, well-formed or not."""

ODD_INPUTS: list[Any] = [
    None,
    "",
    " ",
    "yes",
    "\x00",
    "\ud800",
    "a\x00b\udfff",
    "🙂",
    True,
    False,
    0,
    1,
    -1.5,
    float("nan"),
    [],
    {"k": "v"},
    b"bytes",
    object(),
    "x" * 1_000_000,
    AgentReply(text="yes"),
    AgentReply(text=" ", raw='{"messages": [{"role": "user", "content": "hi"}]}'),
    AgentReply(
        text="7",
        trajectory=Trajectory(steps=(Step(kind="tool_call", tool_call=ToolCall(name="7")),), dialect="x"),
    ),
]
"""Answers (and expected outputs) at the edges: empty, blank, NUL, lone surrogates, an emoji, every JSON
type and some that are not JSON, NaN, an object, a megabyte of text, and agent replies (one carrying a
trajectory, one whose raw reply holds one)."""

ODD_EXPECTED: list[Any] = ["true", None, "\ud800", 7]
"""Expected outputs each odd answer is graded against: a plain one, none, a lone surrogate, a number."""

THRESHOLDS = (0.01, 0.2, 0.5, 2 / 3, 0.9999, 1.0)
"""Pass thresholds a scored grader's drawn configs take (``configs``): the lowest allowed, a few between, one
that no rounding reaches, and exactly 1."""
FLAGS = (True, False)
"""The values of a boolean config option, for ``configs``."""


def picks(pool: Sequence[T], *, min_size: int = 0, max_size: int) -> st.SearchStrategy[list[T]]:
    """Lists of items of ``pool`` (at most 256), drawn as one byte string: one choice for Hypothesis, where
    ``st.lists(st.sampled_from(pool))`` costs a choice and a span per item (CI runs 1,000 examples)."""
    assert 0 < len(pool) <= 256
    items = st.binary(min_size=min_size, max_size=max_size)
    return items.map(lambda raw: [pool[byte % len(pool)] for byte in raw])


def configs(options: Mapping[str, Sequence[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Configs that leave each key of ``options`` out or set it to one of its values (at most 255), drawn as
    one byte string of a byte per key: one choice for Hypothesis, where ``st.fixed_dictionaries`` with
    optional keys costs a choice and a span per key (CI runs 1,000 examples). A zero byte leaves its key
    out, so a failing config shrinks towards the defaults."""
    assert all(0 < len(values) < 256 for values in options.values())
    size = len(options)
    return st.binary(min_size=size, max_size=size).map(partial(_config, options))


def _config(options: Mapping[str, Sequence[Any]], raw: bytes) -> dict[str, Any]:
    config: dict[str, Any] = {}
    for (key, values), byte in zip(options.items(), raw, strict=True):
        if choice := byte % (len(values) + 1):
            config[key] = values[choice - 1]
    return config


def configured(
    build: Callable[[dict[str, Any]], T], options: Mapping[str, Sequence[Any]]
) -> st.SearchStrategy[T]:
    """What ``build`` makes of the configs ``configs(options)`` draws, built once per distinct config and
    shared by the examples that draw it again (a grader is pure, and validating its config against the
    schema costs more than most grades)."""
    built: dict[str, T] = {}

    def once(config: dict[str, Any]) -> T:
        key = repr(sorted(config.items()))
        if key not in built:
            built[key] = build(config)
        return built[key]

    return configs(options).map(once)


def json_documents(
    scalars: Sequence[Any],
    keys: Sequence[str],
    *,
    min_size: int = 2,
    max_size: int = 24,
    is_object: bool = False,
) -> st.SearchStrategy[Any]:
    """JSON documents read from one drawn byte string (see ``_document``): lists and objects nested at any
    depth, ``scalars`` (at most 160) at the leaves and ``keys`` (at most 256) in the objects; an object at
    the top when ``is_object``. One choice for Hypothesis per document, where ``st.recursive`` costs several
    per node: a document of a few leaves costs a quarter as much. A shorter string is a smaller document
    and smaller bytes are simpler tokens, so a failing example still shrinks."""
    assert 0 < len(scalars) <= 160
    assert 0 < len(keys) <= 256
    return st.binary(min_size=min_size, max_size=max_size).map(partial(_document, scalars, keys, is_object))


def _document(scalars: Sequence[Any], keys: Sequence[str], is_object: bool, raw: bytes) -> Any:
    """Read ``raw`` byte by byte: below 96, ``byte % 3`` opens a list (0) or an object (1), or closes the
    innermost open one (2); from 96 up, a byte is a scalar. A value put in an object takes the next byte as
    its key. The document is the top object (``is_object``), else the one value read, or the list of them
    when there are none or several."""
    top: dict[str, Any] = {}
    values: list[Any] = []
    open_containers: list[list[Any] | dict[str, Any]] = [top if is_object else values]
    tokens = iter(raw)
    for byte in tokens:
        if byte < 96 and byte % 3 == 2:
            if len(open_containers) > 1:
                open_containers.pop()
            continue
        value = scalars[(byte - 96) % len(scalars)] if byte >= 96 else [] if byte % 3 == 0 else {}
        container = open_containers[-1]
        if isinstance(container, dict):
            container[keys[next(tokens, 0) % len(keys)]] = value
        else:
            container.append(value)
        if isinstance(value, list | dict):
            open_containers.append(value)
    if is_object:
        return top
    return values[0] if len(values) == 1 else values
