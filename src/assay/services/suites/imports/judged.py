"""Model-judged checks (promptfoo's ``llm-rubric``, OpenAI's ``score_model`` and ``label_model``) as
``llm-judge`` assertions, asking the judge the import was given.

The source files name a check's rubric or labels, never where the judge is: that comes from the import's
options (``assay import --judge judge.json`` or ``--judge-url/--judge-model/--judge-key-env``), an llm-judge
config without the keys each check sets. Without one, such a check cannot be represented and is refused
(or, when asked, dropped and listed), saying how to give one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.errors import Problem, ValidationError
from assay.graders.contract import catalog
from assay.services.suites.imports.records import Assertion, UnsupportedError

__all__ = ["JUDGED_NOTE", "JUDGE_MISSING", "by_labels", "by_rubric", "read_judge"]

JUDGE = "llm-judge"
SET_BY_THE_CHECK = frozenset({"mode", "rubric", "threshold", "labels", "pass_labels"})
"""llm-judge keys each imported check sets; the import's judge gives the others (where and how to ask)."""
JUDGE_MISSING = (
    "it is judged by a model, and the file does not say where the judge is: give the import one "
    "(assay import --judge judge.json, an llm-judge config, or --judge-url, --judge-model, --judge-key-env)"
)
JUDGED_NOTE = (
    "model-judged: Assay's llm-judge asks the import's judge with its own prompt, so verdicts may differ"
)


def read_judge(config: Mapping[str, Any], *, where: str = "--judge") -> dict[str, Any]:
    """The import's judge: an llm-judge config without the keys a check sets, checked by llm-judge itself;
    ``ValidationError`` naming each problem."""
    set_here = sorted(SET_BY_THE_CHECK & set(config))
    if set_here:
        message = f"{where}: {', '.join(set_here)} are set by each imported check, not by the judge"
        raise ValidationError(
            message, problems=[Problem((where, key), "set by each check") for key in set_here]
        )
    grader_class = catalog.lookup(JUDGE)
    if grader_class is None:
        raise ValidationError(f"{where}: no grader '{JUDGE}' is registered")
    problems = grader_class.config_problems(dict(config))
    if problems:
        raise ValidationError(
            f"{where}: {problems[0].message}",
            problems=[Problem((where, *filter(None, [p.path])), p.message) for p in problems],
        )
    return dict(config)


def by_rubric(judge: Mapping[str, Any] | None, rubric: str, threshold: float | None, what: str) -> Assertion:
    """The judge passes the answer by ``rubric``, its score reaching ``threshold`` (llm-judge's default when
    ``None``)."""
    if judge is None:
        raise UnsupportedError(what, JUDGE_MISSING)
    config: dict[str, Any] = {**judge, "mode": "rubric", "rubric": rubric}
    if threshold is not None:
        config["threshold"] = threshold
    return Assertion(grader_id=JUDGE, config=config)


def by_labels(
    judge: Mapping[str, Any] | None, rubric: str, labels: list[str], passing: list[str], what: str
) -> Assertion:
    """The judge labels the answer with one of ``labels``; the ``passing`` ones pass."""
    if judge is None:
        raise UnsupportedError(what, JUDGE_MISSING)
    config = {**judge, "mode": "classify", "rubric": rubric, "labels": labels, "pass_labels": passing}
    return Assertion(grader_id=JUDGE, config=config)
