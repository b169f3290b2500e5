"""promptfoo: a config's ``tests`` (with ``defaultTest`` and its prompts) or a CSV of tests, as suite rows.

What maps to what, and what is refused, is in docs/imports.md. Each test becomes one row per prompt (promptfoo
runs every test against every prompt); the prompt rendered with the test's vars is the input; the vars are
kept in metadata; each assertion becomes an Assay assertion deciding exactly as promptfoo's does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from assay.errors import Loc
from assay.services.suites.imports.promptfoo_assertions import assertions, from_cell
from assay.services.suites.imports.reading import MAX_FILE_BYTES, MAX_ROWS, csv_records, refuse, text_of
from assay.services.suites.imports.records import ImportedRow, LineReport, UnsupportedError, put
from assay.services.suites.imports.session import Session
from assay.services.suites.imports.templates import js_string, path_lookup, render
from assay.services.suites.imports.yaml_core import child, item_lines, line_at, load_yaml

__all__ = ["import_promptfoo"]

_TEST_KEYS = frozenset({"description", "vars", "assert", "threshold", "metadata", "options"})
_CSV_EXPECTED = re.compile(r"__expected\d*")


@dataclass(slots=True)
class _Prompt:
    template: str
    label: str | None


@dataclass(slots=True)
class _Defaults:
    vars: dict[str, Any] = field(default_factory=dict)
    asserts: list[tuple[int, Any]] = field(default_factory=list)
    threshold: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)


# --- the config file ------------------------------------------------------------------------------


def _read_ref(ref: str, base_dir: Path | None, source: str) -> tuple[str, str]:
    """(text, name) of a ``file://`` reference, read only under the config's own folder."""
    if base_dir is None:
        raise refuse(
            source, None, f"'{ref}' refers to a file; import that file itself, or the config from disk"
        )
    root = base_dir.resolve()
    path = (root / ref.removeprefix("file://")).resolve()
    if not path.is_relative_to(root):
        raise refuse(source, None, f"'{ref}' is outside the config's folder")
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise refuse(source, None, f"'{ref}' is over {MAX_FILE_BYTES // (1024 * 1024)} MiB")
        content = path.read_bytes()
    except OSError as exc:
        raise refuse(source, None, f"cannot read '{ref}': {exc.strerror}") from None
    return text_of(content, path.name), path.name


def _prompts(config: dict[str, Any], base_dir: Path | None, source: str) -> list[_Prompt]:
    raw = config.get("prompts")
    if raw is None:
        return []
    items = raw if isinstance(raw, list) else [raw]
    prompts = []
    for number, item in enumerate(items, 1):
        label = None
        if isinstance(item, dict):
            label = item.get("label") if isinstance(item.get("label"), str) else None
            item = item.get("raw", item.get("id"))
        if not isinstance(item, str):
            raise refuse(source, None, f"prompt {number} is not text")
        if item.startswith("file://"):
            if not item.endswith((".txt", ".md", ".j2", ".nunjucks")):
                raise refuse(
                    source, None, f"prompt {number} ('{item}') is not a text template Assay can render"
                )
            item, _ = _read_ref(item, base_dir, source)
        if item.lstrip().startswith("[") and '"role"' in item:
            raise refuse(source, None, f"prompt {number} is a chat prompt; only text prompts can be rendered")
        prompts.append(_Prompt(item, label))
    return prompts


def import_promptfoo(
    content: bytes, source: str, session: Session, *, base_dir: Path | None = None, prompt: str | None = None
) -> None:
    """Rows of a promptfoo config (YAML or JSON) or tests CSV into ``session``. ``base_dir`` is the config's
    folder, where its ``file://`` references are read (none are read without it); ``prompt`` replaces the
    config's prompts."""
    text = text_of(content, source)
    prompts = [_Prompt(prompt, None)] if prompt is not None else []
    if source.lower().endswith(".csv"):
        _csv_tests(text, source, session, prompts, _Defaults())
        return
    config, node = load_yaml(text, source)
    if not isinstance(config, dict):
        raise refuse(source, None, "expected a promptfoo config (a mapping with 'tests')")
    if prompt is None:
        prompts = _prompts(config, base_dir, source)
    defaults = _defaults(config.get("defaultTest"), child(node, "defaultTest"), source)
    tests, tests_node = config.get("tests"), child(node, "tests")
    if isinstance(tests, str):
        tests = [tests]
    if not isinstance(tests, list):
        raise refuse(source, None, "'tests' must be a list of tests or file:// references")
    lines = item_lines(tests_node)
    if len(tests) > MAX_ROWS:
        raise refuse(source, None, f"more than {MAX_ROWS:,} tests")
    for index, test in enumerate(tests):
        line = line_at(lines, index, 1)
        if isinstance(test, str) and test.startswith("file://"):
            ref_text, ref_name = _read_ref(test, base_dir, source)
            if ref_name.lower().endswith(".csv"):
                _csv_tests(ref_text, ref_name, session, prompts, defaults)
            else:
                _yaml_tests(ref_text, ref_name, session, prompts, defaults)
            continue
        item_node = tests_node.value[index] if isinstance(tests_node, yaml.SequenceNode) else None
        _test(test, (source, line), item_node, session, prompts, defaults)


def _yaml_tests(
    text: str, source: str, session: Session, prompts: list[_Prompt], defaults: _Defaults
) -> None:
    tests, node = load_yaml(text, source)
    if not isinstance(tests, list):
        raise refuse(source, None, "expected a list of tests")
    lines = item_lines(node)
    for index, test in enumerate(tests):
        item_node = node.value[index] if isinstance(node, yaml.SequenceNode) else None
        _test(test, (source, line_at(lines, index, 1)), item_node, session, prompts, defaults)


def _defaults(raw: Any, node: yaml.Node | None, source: str) -> _Defaults:
    if raw is None:
        return _Defaults()
    if not isinstance(raw, dict):
        raise refuse(source, None, "'defaultTest' must be a mapping (a file:// reference is not read)")
    unknown = set(raw) - _TEST_KEYS
    try:
        if unknown:
            raise UnsupportedError(f"its key(s) {', '.join(sorted(unknown))}", "change how every test runs")
        _check_options(raw.get("options"), "its options")
    except UnsupportedError as problem:
        raise refuse(
            source, None, f"defaultTest: {problem.what} cannot be represented: {problem.why}"
        ) from None
    asserts = raw.get("assert") or []
    vars_ = raw.get("vars") or {}
    metadata = raw.get("metadata") or {}
    if not isinstance(asserts, list) or not isinstance(vars_, dict) or not isinstance(metadata, dict):
        raise refuse(source, None, "defaultTest: 'assert' must be a list, 'vars' and 'metadata' mappings")
    lines = item_lines(child(node, "assert"))
    return _Defaults(
        vars=vars_,
        asserts=[(line_at(lines, i, 0), a) for i, a in enumerate(asserts)],
        threshold=raw.get("threshold"),
        metadata=metadata,
    )


def _check_options(options: Any, what: str) -> None:
    """Refuses any option but ``provider`` (the grading model, which Assay's own stands in for): the others
    change how the test is run or graded (a transform of the output, another rubric prompt)."""
    if not options:
        return
    if not isinstance(options, dict):
        raise UnsupportedError(what, "are not a mapping")
    other = sorted(set(options) - {"provider"})
    if other:
        raise UnsupportedError(what, f"{', '.join(other)} change how it is run or graded")


# --- one test -------------------------------------------------------------------------------------


def _test(
    test: Any,
    where: tuple[str, int],
    node: yaml.Node | None,
    session: Session,
    prompts: list[_Prompt],
    defaults: _Defaults,
) -> None:
    source, line_number = where
    if not isinstance(test, dict):
        report = session.line(("line", line_number), file=source)
        session.unsupported(report, UnsupportedError("the test", "expected a mapping"), whole_line=True)
        return
    lines = item_lines(child(node, "assert"))
    asserts = test.get("assert") or []
    raw_asserts = [
        *defaults.asserts,
        *((line_at(lines, i, 0), a) for i, a in enumerate(asserts if isinstance(asserts, list) else [])),
    ]
    chosen: list[_Prompt | None] = [*prompts] if prompts else [None]
    for prompt in chosen:
        report = session.line(("line", line_number), file=source)
        try:
            row = _row(test, prompt, len(prompts) > 1, defaults, report)
        except UnsupportedError as problem:
            session.unsupported(report, problem, whole_line=True)
            continue
        if not isinstance(asserts, list):
            session.unsupported(report, UnsupportedError("'assert'", "must be a list"), whole_line=True)
            continue
        lookup = path_lookup(row.metadata.get("vars", {}))
        for number, (assert_line, assertion) in enumerate(raw_asserts, 1):
            label = _assertion_label(number, assert_line, assertion)
            for made in assertions(assertion, label, lookup, session, report):
                row.assertions.append(made)
        session.add_row(row, report)


def _assertion_label(number: int, line: int, assertion: Any) -> str:
    kind = assertion.get("type") if isinstance(assertion, dict) else None
    at = f" at line {line}" if line else ""
    return f"assertion {number} ({kind}){at}" if isinstance(kind, str) else f"assertion {number}{at}"


def _row(
    test: dict[str, Any], prompt: _Prompt | None, several: bool, defaults: _Defaults, report: LineReport
) -> ImportedRow:
    """The row of ``test`` for ``prompt``."""
    unknown = set(test) - _TEST_KEYS
    if unknown:
        raise UnsupportedError("the test", f"its key(s) {', '.join(sorted(unknown))} cannot be represented")
    _check_options(test.get("options"), "the test's options")
    vars_ = test.get("vars") or {}
    metadata = test.get("metadata") or {}
    if not isinstance(vars_, dict) or not isinstance(metadata, dict):
        raise UnsupportedError("the test", "'vars' and 'metadata' must be mappings")
    merged = {**defaults.vars, **vars_}
    for name, value in merged.items():
        if isinstance(value, list):
            raise UnsupportedError(
                f"var '{name}'",
                "is a list (promptfoo runs the test once per value); write one test per value",
            )
        if isinstance(value, str) and value.startswith("file://"):
            raise UnsupportedError(f"var '{name}'", "is a file:// reference, which is not read")
    input_text = _input(merged, prompt)
    row_metadata: dict[str, Any] = {**defaults.metadata, **metadata}
    put(row_metadata, "vars", merged)
    report.metadata.extend(["vars", *defaults.metadata, *metadata])
    if isinstance(test.get("description"), str):
        put(row_metadata, "description", test["description"])
        report.metadata.append("description")
    if several and prompt is not None:
        put(row_metadata, "prompt", prompt.label or prompt.template)
        report.metadata.append("prompt")
    threshold = test.get("threshold", defaults.threshold)
    if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, (int, float))):
        raise UnsupportedError("the test's threshold", "is not a number")
    return ImportedRow(input=input_text, metadata=row_metadata, threshold=threshold)


def _input(vars_: dict[str, Any], prompt: _Prompt | None) -> str:
    """The prompt rendered with the vars; with no prompt, the lone var, else the var named ``input``."""
    if prompt is not None:
        return render(prompt.template, path_lookup(vars_), "the prompt")
    if len(vars_) == 1:
        chosen = next(iter(vars_.values()))
    elif "input" in vars_:
        chosen = vars_["input"]
    else:
        raise UnsupportedError(
            "the input", "there is no prompt and several vars, none named 'input' (give --prompt '{{var}}')"
        )
    try:
        return js_string(chosen)
    except TypeError:
        raise UnsupportedError("the input", "the var is not text") from None


# --- CSV tests ------------------------------------------------------------------------------------


def _csv_tests(text: str, source: str, session: Session, prompts: list[_Prompt], defaults: _Defaults) -> None:
    for line_number, cells in csv_records(text, source):
        test: dict[str, Any] = {"vars": {}}
        asserts: list[Any] = []
        metadata: dict[str, Any] = {}
        metric: str | None = None
        report_place: Loc = ("line", line_number)
        try:
            for column, cell in cells.items():
                if _CSV_EXPECTED.fullmatch(column):
                    if cell.strip():
                        asserts.append(from_cell(cell))
                elif column == "__description":
                    test["description"] = cell
                elif column == "__metric":
                    metric = cell or None
                elif column == "__threshold":
                    if cell.strip():
                        test["threshold"] = float(cell)
                elif column.startswith("__metadata:"):
                    metadata[column.removeprefix("__metadata:")] = cell
                elif column.startswith("__") and column not in ("__prefix", "__suffix"):
                    raise UnsupportedError(
                        f"column '{column}'", "is a promptfoo setting Assay cannot represent"
                    )
                elif not column.startswith("__"):
                    test["vars"][column] = cell
        except ValueError:
            report = session.line(report_place, file=source)
            session.unsupported(report, UnsupportedError("__threshold", "is not a number"), whole_line=True)
            continue
        except UnsupportedError as problem:
            session.unsupported(session.line(report_place, file=source), problem, whole_line=True)
            continue
        if metric is not None:
            for item in asserts:
                item["metric"] = metric
        test["assert"] = asserts
        if metadata:
            test["metadata"] = metadata
        fixed = [
            _Prompt(cells.get("__prefix", "") + p.template + cells.get("__suffix", ""), p.label)
            for p in prompts
        ]
        _test(test, (source, line_number), None, session, fixed, defaults)
