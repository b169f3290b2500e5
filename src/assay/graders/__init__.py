"""Graders: pure functions from (agent_response, expected_output) to a verdict.

The grader classes, and what a grader that makes calls needs, are imported when first named (``from
assay.graders import ChoiceGrader``, or through :mod:`assay.graders.contract.catalog`): a command that grades
with one grader loads that one only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.graders.contract import catalog
from assay.graders.contract.base import GraderInterface, Preset, why_unavailable
from assay.graders.contract.config_check import ConfigProblem, ProblemKind
from assay.graders.contract.reply import AgentReply
from assay.graders.contract.verdict import (
    GradeResult,
    MatchStatus,
    Verdict,
    VerdictRecord,
    VerdictReport,
    error_of,
)
from assay.lazy_names import LazyNames

if TYPE_CHECKING:
    from assay.graders.builtin.choice import ChoiceGrader
    from assay.graders.builtin.contains import ContainsGrader
    from assay.graders.builtin.fuzzy import FuzzyGrader
    from assay.graders.builtin.json_answer import JsonGrader
    from assay.graders.builtin.numeric import NumericGrader
    from assay.graders.builtin.overlap import OverlapGrader
    from assay.graders.builtin.regex import RegexGrader
    from assay.graders.builtin.string_match import StringMatchGrader
    from assay.graders.builtin.tool_args import ToolArgsGrader
    from assay.graders.builtin.tool_called import ToolCalledGrader
    from assay.graders.builtin.tool_sequence import ToolSequenceGrader
    from assay.graders.builtin.trajectory_budget import TrajectoryBudgetGrader
    from assay.graders.builtin.true_false import TrueFalseGrader
    from assay.graders.composite.combinators import (
        AllGrader,
        AnyGrader,
        AtLeastGrader,
        NotGrader,
        WeightedGrader,
    )
    from assay.graders.composite.tree import CompositeGrader
    from assay.graders.contract.calls import (
        CallingGrader,
        CallPlan,
        CallReply,
        CallTransport,
        CaseContext,
        Endpoint,
        OneCallGrader,
        OutboundCall,
        calls_out,
        grade_calling,
    )
    from assay.graders.extract.grader import ExtractGrader
    from assay.graders.judge.grader import LLMJudgeGrader
    from assay.graders.semantic.grader import SemanticGrader

    BUILTIN_GRADERS: tuple[type[GraderInterface], ...]
    """Grader classes that ship with Assay (:data:`catalog.BUILTIN`, each imported), registered by the
    grader service like any plugin."""

_CALLS = (
    "CallingGrader",
    "CallPlan",
    "CallReply",
    "CallTransport",
    "CaseContext",
    "Endpoint",
    "OneCallGrader",
    "OutboundCall",
    "calls_out",
    "grade_calling",
)
"""What a grader that makes calls and the platform exchange (:mod:`assay.graders.contract.calls`): not loaded
by a command that grades without a call."""


def __dir__() -> list[str]:
    return _LAZY.names()


def __getattr__(name: str) -> object:
    if name == "BUILTIN_GRADERS":  # built anew: the tuple holds the classes, not a module's name
        return tuple(catalog.builtin_class(grader_id) for grader_id in catalog.BUILTIN)
    return _LAZY.load(name)


__all__ = [
    "BUILTIN_GRADERS",
    "AgentReply",
    "AllGrader",
    "AnyGrader",
    "AtLeastGrader",
    "CallPlan",
    "CallReply",
    "CallTransport",
    "CallingGrader",
    "CaseContext",
    "ChoiceGrader",
    "CompositeGrader",
    "ConfigProblem",
    "ContainsGrader",
    "Endpoint",
    "ExtractGrader",
    "FuzzyGrader",
    "GradeResult",
    "GraderInterface",
    "JsonGrader",
    "LLMJudgeGrader",
    "MatchStatus",
    "NotGrader",
    "NumericGrader",
    "OneCallGrader",
    "OutboundCall",
    "OverlapGrader",
    "Preset",
    "ProblemKind",
    "RegexGrader",
    "SemanticGrader",
    "StringMatchGrader",
    "ToolArgsGrader",
    "ToolCalledGrader",
    "ToolSequenceGrader",
    "TrajectoryBudgetGrader",
    "TrueFalseGrader",
    "Verdict",
    "VerdictRecord",
    "VerdictReport",
    "WeightedGrader",
    "calls_out",
    "error_of",
    "grade_calling",
    "why_unavailable",
]

_LAZY = LazyNames(
    globals(),
    {path.partition(":")[2]: path.partition(":")[0] for path in catalog.BUILTIN.values()}
    | {"CompositeGrader": "assay.graders.composite.tree"}
    | dict.fromkeys(_CALLS, "assay.graders.contract.calls"),
    __all__,
)
