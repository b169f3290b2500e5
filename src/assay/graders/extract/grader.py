"""The ``extract`` grader: find the final answer in a reply written in sentences, then let a grader judge it.

A wrapper around any grader, written once: :mod:`assay.graders.extract.extraction` finds the answer span ("The
answer is: yes", "**Answer:** True", "<answer>B</answer>", a JSON ``answer`` field, a last short line) and
the wrapped grader (a child spec ``{grader_id, config, expected_output?}``, like ``not``'s; by default
true-false knowing the English answer words) judges that span instead of the whole reply. A reply
extraction refuses (negated, mixed, hedged, a question, two different answers, nothing found) is
``invalid_response`` with the refusing rule in its reason, in ``details.extraction.rule`` and as the
verdict's ``reason_code`` (which results are counted and filtered by): the wrapped grader never sees it, so
it can never pass. Presets, one per language, read that language and English and give true-false that
language's pack plus the answer words extraction reads ("correct", "fausse", "ложно").

Details keep the composites' tree shape (``children`` holds the wrapped grader's verdict, ``decided_by``
its path) plus ``extraction``: ``{"span", "rule", "reason"}``, the span picked and the rule that picked it,
or ``span: null`` and the refusal. ``normalized_actual`` is the span.

The verdict is the wrapped grader's, on the span; so are its report (a true-false child gives the
evaluation its confusion matrix) and its score.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from assay.graders.builtin.true_false import PRESETS as TRUE_FALSE_PRESETS
from assay.graders.composite.children import (
    INVALID_EXPECTED,
    INVALID_RESPONSE,
    MATCH,
    MISMATCH,
    child_entry,
    child_spec_schema,
)
from assay.graders.composite.tree import CompositeGrader, Decision, _TreeVersion
from assay.graders.contract.base import GraderInterface, Preset
from assay.graders.contract.verdict import (
    REASON_CODE,
    GradeResult,
    VerdictReport,
    reason_code_of,
)
from assay.graders.extract.extraction import RULES_SCHEMA, Extraction, ExtractionRules, compiled
from assay.graders.extract.lexicon import LEXICONS
from assay.graders.reading.text import is_blank, read_text

__all__ = ["ExtractGrader"]

_SPEC_KEY = "grader"


def _true_false_spec(*languages: str) -> dict[str, Any]:
    """True-false with the locale packs of ``languages``, knowing also the answer words extraction reads in
    them and in English ("correct", "fausse", "ложно"), so that a span extraction found is never unread. A
    spelling meaning true in one language and false in another is left out (it could not be judged)."""
    aliases: dict[str, dict[str, None]] = {"true": {}, "false": {}}  # ordered sets
    for language in languages:
        pack = TRUE_FALSE_PRESETS[language].config
        for side in ("true", "false"):
            aliases[side].update(dict.fromkeys(pack["aliases"][side]))
    for lexicon in (LEXICONS[name] for name in dict.fromkeys((*languages, "english"))):
        aliases["true"].update(dict.fromkeys((*lexicon.yes, *lexicon.true)))
        aliases["false"].update(dict.fromkeys((*lexicon.no, *lexicon.false)))
        for word, polarity in lexicon.verdict_only:
            aliases["true" if polarity == "+" else "false"][word] = None
    both = {w.casefold() for w in aliases["true"]} & {w.casefold() for w in aliases["false"]}
    for side in ("true", "false"):
        aliases[side] = {w: None for w in aliases[side] if w.casefold() not in both}
    return {
        "grader_id": "true-false",
        "config": {
            "aliases": {side: list(words) for side, words in aliases.items()},
            "extra_aliases": {"true": [], "false": []},
            "case_sensitive": False,
        },
        "expected_output": None,
    }


def _preset(language: str) -> Preset:
    """Extraction reading ``language`` (and English), true-false judging the span in those words."""
    languages = [language] if language == "english" else [language, "english"]
    return Preset(
        f"Answers in {language.capitalize()}{'' if language == 'english' else ' or English'}, judged by "
        f"true-false with the '{language}' pack and the answer words extraction reads",
        {_SPEC_KEY: _true_false_spec(language), "languages": languages},
    )


def _multilingual() -> Preset:
    """Extraction reading every language it knows, true-false judging the span in all of their words: for a
    suite whose expected outputs and replies mix languages ("oui", "ja", "да")."""
    languages = [language for language in LEXICONS if language in TRUE_FALSE_PRESETS]
    return Preset(
        "Answers in any language extraction reads (" + ", ".join(languages) + "), judged by true-false "
        "with every language's pack and answer words",
        {_SPEC_KEY: _true_false_spec(*languages), "languages": list(LEXICONS)},
    )


class _ChildReport:
    """``report`` of the grader: pass/fail on the class, the wrapped grader's on an instance."""

    def __get__(self, instance: object, owner: type[Any] | None = None) -> VerdictReport:
        if instance is None:
            return VerdictReport.PASS_FAIL
        child: GraderInterface = instance._children[0]  # type: ignore[attr-defined]
        return child.report


class ExtractGrader(CompositeGrader):
    """Judges the final answer extracted from a reply with the wrapped grader; a refused reply is invalid."""

    default_id: ClassVar[str] = "extract"
    name: ClassVar[str] = "Extract answer"
    description: ClassVar[str] = (
        "Finds the final answer in a reply written in sentences ('The answer is: yes', an answer tag, a JSON "
        "field, a last short line) and grades it with another grader; negated, hedged, mixed or questioned "
        "replies are invalid"
    )
    type: ClassVar[str] = "extract"
    version = _TreeVersion("1.2.0")
    """Covers extraction's rules and words and the details' shape (1.1.0: the composites' tree entries, the
    child's result with its ``grader_id``); an instance adds the wrapped grader's id and version."""
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            _SPEC_KEY: {
                **child_spec_schema("The grader judging the extracted answer (default: true-false)"),
                "default": _true_false_spec("english"),
            },
            **RULES_SCHEMA["properties"],
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "An answer was extracted from the reply and the wrapped grader matched it",
        "0.0": (
            "The wrapped grader did not match the extracted answer, or no single clear answer could be "
            "extracted (negated, hedged, mixed, a question, two different answers, none)"
        ),
    }
    presets: ClassVar[Mapping[str, Preset]] = {
        **{language: _preset(language) for language in LEXICONS if language in TRUE_FALSE_PRESETS},
        "multilingual": _multilingual(),
    }
    report = _ChildReport()
    _spec_key: ClassVar[str] = _SPEC_KEY

    __slots__ = ("_as_child", "_child", "_extractor", "_fresh", "_label", "_own", "_rules")

    def __init__(self, grader_id: str = "extract", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        options = {key: self._config[key] for key in RULES_SCHEMA["properties"]}
        self._rules = ExtractionRules.from_config(options)
        self._extractor = compiled(self._rules)
        self._child: GraderInterface = self._children[0]
        self._fresh = type(self._child).fresh_results
        self._own = self._own_expected[0]
        self._label = self._labels[0]
        self._as_child = {
            status: self._decided_by(status)[0] for status in (MATCH, MISMATCH, INVALID_RESPONSE)
        }
        self._freeze()

    @property
    def rules(self) -> ExtractionRules:
        """The extraction options this grader was configured with."""
        return self._rules

    # --- what the wrapped grader declares -------------------------------------------------------------------

    @property
    def verdict_labels(self) -> tuple[str, ...]:
        return self._child.verdict_labels

    def report_labels(self, details: Mapping[str, Any]) -> tuple[str | None, str | None]:
        """The wrapped grader's labels; with no span extracted, the expected side's as the child reads it."""
        children = details.get("children")
        if isinstance(children, list) and children and isinstance(children[0].get("details"), Mapping):
            return self._child.report_labels(children[0]["details"])
        if "expected_original" not in details:
            return None, None
        expected = details["expected_original"] if self._own is None else self._own
        try:
            return self._child.report_labels(self._child.grade(None, expected)["details"])[0], None
        except Exception:  # a plugin's labels failing leave the result out of the matrix, nothing worse
            return None, None

    # --- grading --------------------------------------------------------------------------------------------

    def _decide(self, statuses: list[str], children: list[dict[str, Any]]) -> Decision:
        """The wrapped grader's verdict on the span is the verdict (its refusals included)."""
        status, reason = statuses[0], children[0]["details"]["reason"]
        score = children[0]["score"]
        if self.report is not VerdictReport.SCORE or not 0.0 <= score <= 1.0:
            score = 1.0 if status == MATCH else 0.0
        return status == MATCH, self._as_child[status], reason, float(score)

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Extract the answer, then grade it with the wrapped grader. Never raises."""
        try:
            text = agent_response if type(agent_response) is str else read_text(agent_response)
            if is_blank(text):
                return self._blank(agent_response, expected_output)
            extraction = self._extractor.extract(agent_response)
            if extraction.span is None:
                return self._refused(agent_response, expected_output, extraction)
            expected = expected_output if self._own is None else self._own
            result = self._child.grade(extraction.span, expected)
            status, child = child_entry(self._child.grader_id, result, self._fresh)
            details = result["details"]
            decided: int | None = 0
            if status == INVALID_EXPECTED:
                reason, score = self._refusal(0, details["reason"]), 0.0
            else:
                _, template, reason, score = self._decide([status], [child])
                status = template["match_status"]
                reason = f"{extraction.reason}; {self._label}: {reason}"
            code = reason_code_of(details)  # the wrapped grader's own, if it gives one
            return _result(
                status, reason, score, agent_response, expected_output, extraction, decided, [child], code
            )
        except Exception as exc:
            return self._broken(agent_response, expected_output, exc)

    def _refused(self, agent_response: Any, expected_output: Any, extraction: Extraction) -> GradeResult:
        """No answer: invalid_response naming the rule, unless the child refuses the expected output first
        (docs/decisions.md#order-of-verdicts)."""
        refusal = self._first_refusal(expected_output)
        if refusal is not None:
            return _result(
                INVALID_EXPECTED, refusal[1], 0.0, agent_response, expected_output, extraction, 0, []
            )
        reason = f"No answer extracted ({extraction.rule}): {extraction.reason}"
        return _result(
            INVALID_RESPONSE,
            reason,
            0.0,
            agent_response,
            expected_output,
            extraction,
            None,
            [],
            extraction.rule,
        )


def _result(
    status: str,
    reason: str,
    score: float,
    agent_response: Any,
    expected_output: Any,
    extraction: Extraction,
    decided: int | None,
    children: list[Any],  # the children's JSON verdicts, taken into the details as built (no copy, no cast)
    code: str | None = None,
) -> GradeResult:
    """The verdict dict: the composites' keys and tree, with the extraction trace beside them."""
    return {
        "passed": status == MATCH,
        "score": score,
        "details": {
            "match_status": status,
            "reason": reason,
            "expected_original": expected_output,
            "actual_original": agent_response,
            "normalized_expected": None,
            "normalized_actual": extraction.span,
            "extraction": {"span": extraction.span, "rule": extraction.rule, "reason": extraction.reason},
            REASON_CODE: code,
            "decided_by": _SPEC_KEY if decided is not None else None,
            "children": children,
        },
    }
