"""promptfoo: a config's ``tests`` (with ``defaultTest`` and its prompts) or a CSV of tests, as suite rows.

What maps to what, and what is refused, is in docs/imports.md. Each test becomes one row per prompt (promptfoo
runs every test against every prompt); the prompt rendered with the test's vars is the input; the vars are
kept in metadata; each assertion becomes an Assay assertion deciding exactly as promptfoo's does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from assay.errors import Loc
from assay.services.suites.imports import checks
from assay.services.suites.imports.reading import MAX_FILE_BYTES, MAX_ROWS, csv_records, refuse, text_of
from assay.services.suites.imports.records import Assertion, ImportedRow, LineReport, UnsupportedError, put
from assay.services.suites.imports.session import Session
from assay.services.suites.imports.templates import js_string, path_lookup, render
from assay.services.suites.imports.yaml_core import CoreLoader

__all__ = ["import_promptfoo"]

MAX_YAML_NODES = 5_000_000
"""Values a config may hold once its aliases are expanded."""
SIMILAR_THRESHOLD = 0.75
"""promptfoo's default threshold of ``similar``."""

_TEST_KEYS = frozenset({"description", "vars", "assert", "threshold", "metadata", "options"})
_ASSERT_KEYS = frozenset({"type", "value", "weight", "metric", "threshold", "provider"})
_CSV_EXPECTED = re.compile(r"__expected\d*")
_CSV_ASSERTION = re.compile(r"^(not-)?([a-z][a-z0-9-]*)(?:\((\d+(?:\.\d+)?)\))?(?::(.*))?$", re.DOTALL)
_VALUELESS = frozenset(
    {"is-json", "contains-json", "is-xml", "contains-xml", "is-sql", "contains-sql", "is-html", "is-refusal"}
)
"""Types a CSV cell may name without a colon (they take no value)."""
_SUPPORTED = frozenset(
    {"equals", "contains", "icontains", "contains-any", "contains-all", "icontains-any", "icontains-all"}
    | {"regex", "starts-with", "is-json", "similar", "llm-rubric", "grade"}
)
_WHY_NOT = {
    "contains-json": "Assay's json grader reads JSON from the whole answer or one fenced block, not from "
    "anywhere in the text as promptfoo does",
}


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
    provider: Any = None


# --- the config file ------------------------------------------------------------------------------


def _load_yaml(text: str, source: str) -> tuple[Any, yaml.Node | None]:
    """The document and its node tree (for line numbers); one clear error when it is not YAML."""
    loader = CoreLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _check_expansion(node, source)
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise refuse(source, line, f"not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    except RecursionError:
        raise refuse(source, None, "not valid YAML (nested too deeply)") from None
    finally:
        loader.dispose()
    return data, node


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_expansion(root: yaml.Node, source: str) -> None:
    """Refuse a document whose aliases expand past :data:`MAX_YAML_NODES` (a "billion laughs") or refer to
    themselves: each row is written out whole, so a small file must not stand for a huge one."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()  # the path from the root being walked: an alias to one of them is a cycle
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, closing = stack.pop()
        key = id(node)
        if closing:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[key] > MAX_YAML_NODES:
                raise refuse(source, None, f"its aliases expand past {MAX_YAML_NODES:,} values")
            continue
        if key in sizes:
            continue
        open_nodes.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise refuse(source, child.start_mark.line + 1, "an alias refers to a value that holds it")
            if id(child) not in sizes:
                stack.append((child, False))


def _child(node: yaml.Node | None, key: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
                return value_node
    return None


def _item_lines(node: yaml.Node | None) -> list[int]:
    if isinstance(node, yaml.SequenceNode):
        return [item.start_mark.line + 1 for item in node.value]
    return []


def _line(lines: list[int], index: int, fallback: int) -> int:
    return lines[index] if index < len(lines) else fallback


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
    config, node = _load_yaml(text, source)
    if not isinstance(config, dict):
        raise refuse(source, None, "expected a promptfoo config (a mapping with 'tests')")
    if prompt is None:
        prompts = _prompts(config, base_dir, source)
    defaults = _defaults(config.get("defaultTest"), _child(node, "defaultTest"), source)
    tests, tests_node = config.get("tests"), _child(node, "tests")
    if isinstance(tests, str):
        tests = [tests]
    if not isinstance(tests, list):
        raise refuse(source, None, "'tests' must be a list of tests or file:// references")
    lines = _item_lines(tests_node)
    if len(tests) > MAX_ROWS:
        raise refuse(source, None, f"more than {MAX_ROWS:,} tests")
    for index, test in enumerate(tests):
        line = _line(lines, index, 1)
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
    tests, node = _load_yaml(text, source)
    if not isinstance(tests, list):
        raise refuse(source, None, "expected a list of tests")
    lines = _item_lines(node)
    for index, test in enumerate(tests):
        item_node = node.value[index] if isinstance(node, yaml.SequenceNode) else None
        _test(test, (source, _line(lines, index, 1)), item_node, session, prompts, defaults)


def _defaults(raw: Any, node: yaml.Node | None, source: str) -> _Defaults:
    if raw is None:
        return _Defaults()
    if not isinstance(raw, dict):
        raise refuse(source, None, "'defaultTest' must be a mapping (a file:// reference is not read)")
    unknown = set(raw) - _TEST_KEYS
    try:
        if unknown:
            raise UnsupportedError(f"its key(s) {', '.join(sorted(unknown))}", "change how every test runs")
        provider = _grading_provider(raw.get("options"), "its options")
    except UnsupportedError as problem:
        raise refuse(
            source, None, f"defaultTest: {problem.what} cannot be represented: {problem.why}"
        ) from None
    asserts = raw.get("assert") or []
    vars_ = raw.get("vars") or {}
    metadata = raw.get("metadata") or {}
    if not isinstance(asserts, list) or not isinstance(vars_, dict) or not isinstance(metadata, dict):
        raise refuse(source, None, "defaultTest: 'assert' must be a list, 'vars' and 'metadata' mappings")
    lines = _item_lines(_child(node, "assert"))
    return _Defaults(
        vars=vars_,
        asserts=[(_line(lines, i, 0), a) for i, a in enumerate(asserts)],
        threshold=raw.get("threshold"),
        metadata=metadata,
        provider=provider,
    )


def _grading_provider(options: Any, what: str) -> Any:
    """The grading provider ``options`` names (for llm-rubric); any other option changes how the test is run
    or graded (a transform of the output, another rubric prompt), so it is refused."""
    if not options:
        return None
    if not isinstance(options, dict):
        raise UnsupportedError(what, "are not a mapping")
    other = sorted(set(options) - {"provider"})
    if other:
        raise UnsupportedError(what, f"{', '.join(other)} change how it is run or graded")
    return options.get("provider")


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
    lines = _item_lines(_child(node, "assert"))
    asserts = test.get("assert") or []
    raw_asserts = [
        *defaults.asserts,
        *((_line(lines, i, 0), a) for i, a in enumerate(asserts if isinstance(asserts, list) else [])),
    ]
    chosen: list[_Prompt | None] = [*prompts] if prompts else [None]
    for prompt in chosen:
        report = session.line(("line", line_number), file=source)
        try:
            row, provider = _row(test, prompt, len(prompts) > 1, defaults, report)
        except UnsupportedError as problem:
            session.unsupported(report, problem, whole_line=True)
            continue
        if not isinstance(asserts, list):
            session.unsupported(report, UnsupportedError("'assert'", "must be a list"), whole_line=True)
            continue
        lookup = path_lookup(row.metadata.get("vars", {}))
        for number, (assert_line, assertion) in enumerate(raw_asserts, 1):
            label = _assertion_label(number, assert_line, assertion)
            for made in _assertions(assertion, label, lookup, provider, session, report):
                row.assertions.append(made)
        session.add_row(row, report)


def _assertion_label(number: int, line: int, assertion: Any) -> str:
    kind = assertion.get("type") if isinstance(assertion, dict) else None
    at = f" at line {line}" if line else ""
    return f"assertion {number} ({kind}){at}" if isinstance(kind, str) else f"assertion {number}{at}"


def _row(
    test: dict[str, Any], prompt: _Prompt | None, several: bool, defaults: _Defaults, report: LineReport
) -> tuple[ImportedRow, Any]:
    """The row of ``test`` for ``prompt``, and the grading provider its model-judged checks use."""
    unknown = set(test) - _TEST_KEYS
    if unknown:
        raise UnsupportedError("the test", f"its key(s) {', '.join(sorted(unknown))} cannot be represented")
    provider = _grading_provider(test.get("options"), "the test's options") or defaults.provider
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
    return ImportedRow(input=input_text, metadata=row_metadata, threshold=threshold), provider


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


# --- one assertion --------------------------------------------------------------------------------


def _assertions(
    raw: Any,
    label: str,
    lookup: Callable[[str], object],
    provider: Any,
    session: Session,
    report: LineReport,
) -> list[Assertion]:
    """The Assay assertion(s) of one promptfoo assertion (none when it is dropped or refused)."""
    try:
        build = _builder(raw, label, lookup, provider)
    except UnsupportedError as problem:
        session.unsupported(report, problem)
        return []
    made = session.check(report, label, build)
    return [made] if made is not None else []


def _builder(raw: Any, label: str, lookup: Callable[[str], object], provider: Any) -> Callable[[], Assertion]:
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise UnsupportedError(label, "expected a mapping with a 'type'")
    unknown = set(raw) - _ASSERT_KEYS
    if unknown:
        raise UnsupportedError(label, f"its key(s) {', '.join(sorted(unknown))} change how it grades")
    kind = raw["type"]
    negated = kind.startswith("not-")
    base = kind.removeprefix("not-")
    if base not in _SUPPORTED:
        why = _WHY_NOT.get(base, f"no Assay grader decides as promptfoo's '{base}' does")
        raise UnsupportedError(label, why)
    value = _rendered(raw.get("value"), lookup, label)
    threshold = raw.get("threshold")
    if threshold is not None and base not in ("similar", "llm-rubric", "grade"):
        raise UnsupportedError(label, f"a threshold on '{base}' has no Assay meaning")
    weight, name = raw.get("weight"), raw.get("metric")
    if weight is not None and (
        isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0
    ):
        raise UnsupportedError(label, "its weight is not a number ≥ 0")
    if name is not None and not isinstance(name, str):
        raise UnsupportedError(label, "its metric is not text")
    make = _kind_builder(base, value, threshold, raw.get("provider", provider), label)

    def build() -> Assertion:
        assertion = make()
        if negated:
            assertion = checks.negate(assertion)
        return Assertion(
            grader_id=assertion.grader_id,
            config=assertion.config,
            expected_output=assertion.expected_output,
            weight=weight,
            name=name,
        )

    return build


def _rendered(value: Any, lookup: Callable[[str], object], label: str) -> Any:
    if isinstance(value, str):
        if value.startswith("file://"):
            raise UnsupportedError(label, "its value is a file:// reference, which is not read")
        return render(value, lookup, label)
    if isinstance(value, list):
        return [_rendered(item, lookup, label) for item in value]
    return value


def _model(provider: Any, label: str) -> str | None:
    """The judge model an ``openai:<model>`` grading provider (or ``{id: ...}``) names."""
    if isinstance(provider, dict) and set(provider) == {"id"}:
        provider = provider["id"]
    if provider is None:
        return None
    if isinstance(provider, str) and provider.startswith("openai:"):
        return provider.removeprefix("openai:").removeprefix("chat:")
    raise UnsupportedError(label, "its grading provider is not an openai:<model> id Assay's judge can call")


def _text(value: Any, label: str) -> str:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and value != "":
        return js_string(value)
    raise UnsupportedError(label, "its value must be non-empty text or a number")


def _values(value: Any, label: str) -> list[str]:
    if isinstance(value, str):
        if '"' in value:
            raise UnsupportedError(label, "a quoted comma-separated list is parsed by promptfoo's own rules")
        value = [part.strip() for part in value.split(",")]
    if not isinstance(value, list) or not value:
        raise UnsupportedError(label, "its value must be a list or comma-separated text")
    return [_text(item, label) for item in value]


def _kind_builder(
    base: str, value: Any, threshold: Any, provider: Any, label: str
) -> Callable[[], Assertion]:
    if base == "equals":
        if isinstance(value, (dict, list)):
            return lambda: checks.json_equals(value)
        text = _text(value, label) if value != "" else ""
        return lambda: checks.equals(text)
    if base in ("contains", "icontains"):
        text = _text(value, label)
        return lambda: checks.contains(text, case_sensitive=base == "contains")
    if base in ("contains-any", "contains-all", "icontains-any", "icontains-all"):
        items = _values(value, label)
        combinator = "any" if base.endswith("-any") else "all"
        sensitive = not base.startswith("i")
        return lambda: Assertion(
            grader_id=combinator,
            config={"graders": [checks.contains(item, case_sensitive=sensitive).spec() for item in items]},
        )
    if base == "regex":
        pattern = _text(value, label)
        return lambda: checks.regex_search(pattern)
    if base == "starts-with":
        prefix = _text(value, label)
        return lambda: checks.starts_with(prefix)
    if base == "is-json":
        schema = _schema(value, label)
        return lambda: checks.is_json(schema)
    if base == "similar":
        cut = SIMILAR_THRESHOLD if threshold is None else threshold
        texts = _values(value, label) if isinstance(value, list) else [_text(value, label)]
        if len(texts) == 1:
            return lambda: Assertion(
                grader_id="semantic", config={"threshold": cut}, expected_output=texts[0]
            )
        return lambda: Assertion(
            grader_id="any",
            config={
                "graders": [
                    {"grader_id": "semantic", "config": {"threshold": cut}, "expected_output": t}
                    for t in texts
                ]
            },
        )
    rubric = _text(value, label)  # llm-rubric, grade
    model = _model(provider, label)  # only a judge's: similar's embedding model is Assay's own (noted)
    return lambda: checks.judge_rubric(rubric, threshold=threshold, model=model)


def _schema(value: Any, label: str) -> dict[str, Any] | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = yaml.load(value, Loader=CoreLoader)
        except yaml.YAMLError:
            raise UnsupportedError(label, "its schema is not valid YAML or JSON") from None
    if not isinstance(value, dict):
        raise UnsupportedError(label, "its schema must be an object")
    return value


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
                        asserts.append(_from_string(cell))
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


def _from_string(cell: str) -> dict[str, Any]:
    """An ``__expected`` cell as promptfoo reads it: ``type:value`` (``not-`` and ``similar(0.8):`` forms,
    ``grade:``/``grader:`` for llm-rubric), and any other text an ``equals``. Any lowercase ``word:`` prefix
    is read as a type, so a type Assay does not know is refused rather than compared as text."""
    match = _CSV_ASSERTION.match(cell.strip())
    if match is not None:
        negated, kind, threshold, value = match.groups()
        if value is not None or kind in _VALUELESS:
            kind = "llm-rubric" if kind in ("grade", "grader") else kind
            assertion: dict[str, Any] = {"type": f"{negated or ''}{kind}"}
            if value is not None and value.strip():
                assertion["value"] = value.strip()
            if threshold is not None:
                assertion["threshold"] = float(threshold)
            return assertion
    return {"type": "equals", "value": cell}
