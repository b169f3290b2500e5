"""Graders: pure functions from (agent_response, expected_output) to a verdict."""

from assay.graders import catalog
from assay.graders.base import GraderInterface, Preset
from assay.graders.calls import CallingGrader, CallReply, CallTransport, Endpoint, OutboundCall, grade_calling
from assay.graders.choice import ChoiceGrader
from assay.graders.combinators import AllGrader, AnyGrader, AtLeastGrader, NotGrader, WeightedGrader
from assay.graders.composition import CompositeGrader
from assay.graders.config_check import ConfigProblem, ProblemKind
from assay.graders.contains import ContainsGrader
from assay.graders.llm_judge import LLMJudgeGrader
from assay.graders.regex import RegexGrader
from assay.graders.string_match import StringMatchGrader
from assay.graders.true_false import TrueFalseGrader
from assay.graders.verdict import GradeResult, MatchStatus, Verdict, VerdictReport, error_of

BUILTIN_GRADERS: tuple[type[GraderInterface], ...] = (
    StringMatchGrader,
    TrueFalseGrader,
    ContainsGrader,
    RegexGrader,
    ChoiceGrader,
    NotGrader,
    AllGrader,
    AnyGrader,
    AtLeastGrader,
    WeightedGrader,
    LLMJudgeGrader,
)
"""Grader classes that ship with Assay, registered by the grader service like any plugin."""

for _grader_class in BUILTIN_GRADERS:  # composites build their children from the catalog
    catalog.add(_grader_class)

__all__ = [
    "BUILTIN_GRADERS",
    "AllGrader",
    "AnyGrader",
    "AtLeastGrader",
    "CallReply",
    "CallTransport",
    "CallingGrader",
    "ChoiceGrader",
    "CompositeGrader",
    "ConfigProblem",
    "ContainsGrader",
    "Endpoint",
    "GradeResult",
    "GraderInterface",
    "LLMJudgeGrader",
    "MatchStatus",
    "NotGrader",
    "OutboundCall",
    "Preset",
    "ProblemKind",
    "RegexGrader",
    "StringMatchGrader",
    "TrueFalseGrader",
    "Verdict",
    "VerdictReport",
    "WeightedGrader",
    "error_of",
    "grade_calling",
]
