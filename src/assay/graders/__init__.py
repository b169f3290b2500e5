"""Graders: pure functions from (agent_response, expected_output) to a verdict."""

from assay.graders import catalog
from assay.graders.base import GraderInterface, Preset, why_unavailable
from assay.graders.calls import CallingGrader, CallReply, CallTransport, Endpoint, OutboundCall, grade_calling
from assay.graders.choice import ChoiceGrader
from assay.graders.combinators import AllGrader, AnyGrader, AtLeastGrader, NotGrader, WeightedGrader
from assay.graders.composition import CompositeGrader
from assay.graders.config_check import ConfigProblem, ProblemKind
from assay.graders.contains import ContainsGrader
from assay.graders.extract import ExtractGrader
from assay.graders.fuzzy import FuzzyGrader
from assay.graders.json_answer import JsonGrader
from assay.graders.llm_judge import LLMJudgeGrader
from assay.graders.numeric import NumericGrader
from assay.graders.overlap import OverlapGrader
from assay.graders.regex import RegexGrader
from assay.graders.semantic import SemanticGrader
from assay.graders.string_match import StringMatchGrader
from assay.graders.true_false import TrueFalseGrader
from assay.graders.verdict import GradeResult, MatchStatus, Verdict, VerdictReport, error_of

BUILTIN_GRADERS: tuple[type[GraderInterface], ...] = (
    StringMatchGrader,
    TrueFalseGrader,
    ContainsGrader,
    RegexGrader,
    ChoiceGrader,
    NumericGrader,
    JsonGrader,
    FuzzyGrader,
    OverlapGrader,
    SemanticGrader,
    NotGrader,
    AllGrader,
    AnyGrader,
    AtLeastGrader,
    WeightedGrader,
    ExtractGrader,
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
    "ExtractGrader",
    "FuzzyGrader",
    "GradeResult",
    "GraderInterface",
    "JsonGrader",
    "LLMJudgeGrader",
    "MatchStatus",
    "NotGrader",
    "NumericGrader",
    "OutboundCall",
    "OverlapGrader",
    "Preset",
    "ProblemKind",
    "RegexGrader",
    "SemanticGrader",
    "StringMatchGrader",
    "TrueFalseGrader",
    "Verdict",
    "VerdictReport",
    "WeightedGrader",
    "error_of",
    "grade_calling",
    "why_unavailable",
]
