"""Inputs a grader must survive: Hypothesis strategies of any answer, and the fixed odd values that every
property over graders also tries as explicit ``@example``s (so that each is checked on every run, in every
profile, not only when the generator happens to draw it)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from assay.graders.contract.reply import AgentReply
from assay.graders.trajectory.record import Step, ToolCall, Trajectory

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


def json_trees(
    scalars: st.SearchStrategy[Any], keys: st.SearchStrategy[Any], *, max_leaves: int, width: int = 4
) -> st.SearchStrategy[Any]:
    """JSON documents: ``scalars`` at the leaves, lists and objects (keys drawn from ``keys``) of at most
    ``width`` entries, at most ``max_leaves`` leaves in all. Drawing a tree costs Hypothesis about its leaves,
    so a property that needs no big document asks for few: CI runs 1,000 examples of each."""
    return st.recursive(
        scalars,
        lambda children: st.lists(children, max_size=width) | st.dictionaries(keys, children, max_size=width),
        max_leaves=max_leaves,
    )
