"""Graders: pure functions from (agent_response, expected_output) to a verdict."""

from assay.graders.base import GraderInterface, Preset
from assay.graders.config_check import ConfigProblem, ProblemKind
from assay.graders.fuzzy import FuzzyGrader
from assay.graders.overlap import OverlapGrader
from assay.graders.string_match import StringMatchGrader
from assay.graders.true_false import TrueFalseGrader
from assay.graders.verdict import GradeResult, MatchStatus, Verdict, VerdictReport

BUILTIN_GRADERS: tuple[type[GraderInterface], ...] = (
    StringMatchGrader,
    TrueFalseGrader,
    FuzzyGrader,
    OverlapGrader,
)
"""Grader classes that ship with Assay, registered by the grader service like any plugin."""

__all__ = [
    "BUILTIN_GRADERS",
    "ConfigProblem",
    "FuzzyGrader",
    "GradeResult",
    "GraderInterface",
    "MatchStatus",
    "OverlapGrader",
    "Preset",
    "ProblemKind",
    "StringMatchGrader",
    "TrueFalseGrader",
    "Verdict",
    "VerdictReport",
]
