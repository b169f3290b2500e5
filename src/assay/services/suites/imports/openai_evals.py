"""OpenAI Evals: the data JSONL (``item``, optional ``sample``) with the eval's ``testing_criteria``.

Each criterion becomes an assertion of every row, its ``{{item.x}}`` templates rendered with that row's item;
the answer is ``{{sample.output_text}}``. Which criteria map, and which are refused, is in docs/imports.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from assay.services.suites.imports import checks, judged
from assay.services.suites.imports.conversation import render_conversation
from assay.services.suites.imports.reading import jsonl_records, parse_json, refuse, text_of
from assay.services.suites.imports.records import Assertion, ImportedRow, LineReport, UnsupportedError, put
from assay.services.suites.imports.session import Session
from assay.services.suites.imports.templates import path_lookup, render

__all__ = ["import_openai_evals"]

ANSWER = re.compile(r"\{\{\s*sample\.output_text\s*\}\}")
_SIMILARITY_REFUSED = (
    "Assay has no grader computing OpenAI's '{metric}' the same way (its tokenisation and scoring are "
    "OpenAI's own)"
)


def _eval_parts(
    eval_content: bytes | None, eval_source: str
) -> tuple[list[dict[str, Any]], list[Any] | None]:
    """(testing criteria, input message template or None) of the eval definition file."""
    if eval_content is None:
        return [], None
    document = parse_json(text_of(eval_content, eval_source), eval_source)
    if not isinstance(document, dict):
        raise refuse(eval_source, None, "expected an eval object with 'testing_criteria'")
    criteria = document.get("testing_criteria", [])
    if not isinstance(criteria, list) or not all(isinstance(item, dict) for item in criteria):
        raise refuse(eval_source, None, "'testing_criteria' must be a list of objects")
    source = document.get("data_source") if isinstance(document.get("data_source"), dict) else document
    messages = source.get("input_messages") if isinstance(source, dict) else None
    template = None
    if isinstance(messages, dict):
        if messages.get("type") != "template" or not isinstance(messages.get("template"), list):
            raise refuse(eval_source, None, "'input_messages' must be a template (a list of messages)")
        template = messages["template"]
    return criteria, template


def import_openai_evals(
    content: bytes,
    source: str,
    session: Session,
    *,
    eval_content: bytes | None = None,
    eval_source: str = "eval",
) -> None:
    """Rows of an OpenAI Evals data file into ``session``, checked by the criteria of ``eval_content`` (the
    object as JSON; its ``input_messages`` template, when given, makes the input)."""
    criteria, template = _eval_parts(eval_content, eval_source)
    for line_number, record in jsonl_records(text_of(content, source), source):
        report = session.line(("line", line_number))
        try:
            row = _row(record, template, report)
        except UnsupportedError as problem:
            session.unsupported(report, problem, whole_line=True)
            continue
        values = {"item": record["item"]}
        for number, criterion in enumerate(criteria, 1):
            name = criterion.get("name") if isinstance(criterion.get("name"), str) else None
            label = f"criterion {number} ({name or criterion.get('type')})"
            try:
                build = _builder(criterion, values, label, session.judge)
            except UnsupportedError as problem:
                session.unsupported(report, problem)
                continue
            made = session.check(report, label, build)
            if made is None:
                continue
            row.assertions.append(
                Assertion(
                    grader_id=made.grader_id,
                    config=made.config,
                    expected_output=made.expected_output,
                    name=name,
                )
            )
        session.add_row(row, report)


def _row(record: dict[str, Any], template: list[Any] | None, report: LineReport) -> ImportedRow:
    item = record.get("item")
    if not isinstance(item, dict):
        raise UnsupportedError("the line", "has no 'item' object")
    unknown = set(record) - {"item", "sample"}
    if unknown:
        raise UnsupportedError(
            "the line", f"its field(s) {', '.join(sorted(unknown))} are not OpenAI Evals data"
        )
    metadata: dict[str, Any] = dict(item)
    report.metadata.extend(f"item.{name}" for name in item)
    if "sample" in record:
        put(metadata, "openai_sample", record["sample"])
        report.metadata.append("sample (as openai_sample)")
    if template is not None:
        lookup = path_lookup({"item": item})
        rendered = []
        for number, message in enumerate(template, 1):
            if not isinstance(message, dict) or not isinstance(message.get("content"), str):
                raise UnsupportedError(f"input message {number}", "has no text content")
            content = render(message["content"], lookup, f"input message {number}")
            rendered.append({"role": message.get("role"), "content": content})
        input_text = render_conversation(rendered)
        if len(rendered) > 1 or rendered[0].get("role") != "user":
            put(metadata, "messages", rendered)
            report.metadata.append("messages")
    elif isinstance(item.get("input"), str):
        input_text = item["input"]
    elif isinstance(item.get("input"), list) and item["input"]:
        input_text = render_conversation(item["input"])  # the messages themselves stay in item.input
    else:
        raise UnsupportedError(
            "the input", "give the eval file an 'input_messages' template, or the item an 'input' text"
        )
    return ImportedRow(input=input_text, metadata=metadata)


def _answer_and_reference(criterion: dict[str, Any], values: dict[str, Any], label: str) -> str:
    """The rendered reference of a criterion whose ``input`` is the answer (``{{sample.output_text}}``)."""
    graded, reference = criterion.get("input"), criterion.get("reference")
    if not isinstance(graded, str) or not ANSWER.fullmatch(graded.strip()):
        raise UnsupportedError(label, "its input is not the answer ({{sample.output_text}}) alone")
    if not isinstance(reference, str):
        raise UnsupportedError(label, "its reference is not text")
    if ANSWER.search(reference):
        raise UnsupportedError(label, "its reference uses the answer")
    return render(reference, path_lookup(values), label)


def _builder(
    criterion: dict[str, Any], values: dict[str, Any], label: str, judge: Mapping[str, Any] | None
) -> Any:
    kind = criterion.get("type")
    if kind == "string_check":
        reference = _answer_and_reference(criterion, values, label)
        operation = criterion.get("operation")
        if operation == "eq":
            return lambda: checks.equals(reference)
        if operation == "ne":
            return lambda: checks.negate(checks.equals(reference))
        if operation in ("like", "ilike"):
            return lambda: checks.contains(reference, case_sensitive=operation == "like")
        raise UnsupportedError(label, f"its operation '{operation}' is not eq, ne, like or ilike")
    if kind == "text_similarity":
        reference = _answer_and_reference(criterion, values, label)
        metric = criterion.get("evaluation_metric")
        threshold = criterion.get("pass_threshold")
        if metric != "cosine":
            raise UnsupportedError(label, _SIMILARITY_REFUSED.format(metric=metric))
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
            raise UnsupportedError(label, "its pass_threshold is not a number")
        return lambda: Assertion(
            grader_id="semantic", config={"threshold": threshold}, expected_output=reference
        )
    if kind in ("score_model", "label_model"):
        if judge is None:
            raise UnsupportedError(label, judged.JUDGE_MISSING)
        return _model_builder(criterion, values, label, _judge_of(criterion, judge, label))
    raise UnsupportedError(label, f"no Assay grader runs OpenAI's '{kind}' grader")


_SAMPLING = {"temperature": "temperature", "max_completions_tokens": "max_tokens"}
"""OpenAI's ``sampling_params`` llm-judge sends the same way."""


def _judge_of(criterion: dict[str, Any], judge: Mapping[str, Any], label: str) -> dict[str, Any]:
    """The import's judge, asking the criterion's model unless the import names one, with its sampling."""
    config = dict(judge)
    model = criterion.get("model")
    if "model" not in config and isinstance(model, str) and model.strip():
        config["model"] = model
    sampling = criterion.get("sampling_params") or {}
    if not isinstance(sampling, dict):
        raise UnsupportedError(label, "its sampling_params are not an object")
    other = sorted(set(sampling) - set(_SAMPLING))
    if other:
        raise UnsupportedError(label, f"its sampling_params {', '.join(other)} have no llm-judge setting")
    for name, key in _SAMPLING.items():
        if name in sampling:
            config[key] = sampling[name]
    return config


def _model_builder(
    criterion: dict[str, Any], values: dict[str, Any], label: str, judge: dict[str, Any]
) -> Any:
    """A ``score_model`` (a rubric, its range mapped onto the judge's 0 to 1) or ``label_model``."""
    rubric = _judge_prompt(criterion.get("input"), values, label)
    if criterion["type"] == "label_model":
        labels, passing = criterion.get("labels"), criterion.get("passing_labels")
        if not isinstance(labels, list) or not isinstance(passing, list) or not _texts(labels + passing):
            raise UnsupportedError(label, "its labels and passing_labels must be lists of text")
        return lambda: judged.by_labels(judge, rubric, labels, passing, label)
    low, high = _scale(criterion.get("range", [0, 1]), label)
    threshold = criterion.get("pass_threshold")
    if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, (int, float))):
        raise UnsupportedError(label, "its pass_threshold is not a number")
    cut = None if threshold is None else (threshold - low) / (high - low)
    if (low, high) != (0, 1):
        rubric += (
            f"\n\n(These instructions score from {low:g} to {high:g}. Give your score from 0 to 1 instead: a "
            f"score s on their scale is (s - {low:g}) / {high - low:g}.)"
        )
    return lambda: judged.by_rubric(judge, rubric, cut, label)


def _texts(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, str) for item in value)


def _scale(value: Any, label: str) -> tuple[float, float]:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        or not value[0] < value[1]
    ):
        raise UnsupportedError(label, "its range is not [low, high] with low < high")
    return float(value[0]), float(value[1])


def _judge_prompt(messages: Any, values: dict[str, Any], label: str) -> str:
    """The grader's messages as the judge's rubric, each ``role: content``: the item's values rendered, and
    the answer (``{{sample.output_text}}``) named, as the judge is shown it beside the rubric."""
    if not isinstance(messages, list) or not messages:
        raise UnsupportedError(label, "its input is not a list of messages")
    parts = []
    for number, message in enumerate(messages, 1):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise UnsupportedError(f"{label} message {number}", "has no text content")
        named = ANSWER.sub("[the agent_response]", content)
        parts.append(f"{message.get('role', 'user')}: {render(named, path_lookup(values), label)}")
    return "\n\n".join(parts)
