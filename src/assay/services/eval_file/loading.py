"""An ``assay.yaml`` read and checked whole, every problem named by file and line.

YAML is read by the imports' reader (:mod:`assay.services.suites.imports.yaml_core`: the YAML 1.2 core schema,
so ``no`` stays text, line numbers kept, aliases bounded). A key given twice is an error (PyYAML keeps the
last silently). pydantic's errors are placed on the line of the key they concern; an unknown key names the
nearest valid one (:mod:`difflib`).
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pydantic
import yaml

from assay.errors import Loc, NotFoundError, Problem, ValidationError, location
from assay.services.eval_file import MAX_EVAL_FILE_BYTES
from assay.services.eval_file.model import EvalFile
from assay.services.suites.imports.reading import text_of
from assay.services.suites.imports.yaml_core import load_yaml

__all__ = ["MAX_EVAL_FILE_BYTES", "EvalFileError", "line_of", "parse_eval_file", "read_eval_file"]


class EvalFileError(ValidationError):
    """An ``assay.yaml`` that cannot run: every problem, each ``<file> line <n>: <what>``."""

    @classmethod
    def listing(cls, source: str, problems: Sequence[Problem]) -> EvalFileError:
        """The error of ``problems`` (already placed), one line each."""
        if len(problems) == 1:
            return cls(problems[0].message, problems=problems)
        return cls(f"{source} has {len(problems)} problems", problems=problems)


def read_eval_file(path: Path) -> tuple[EvalFile, yaml.Node | None]:
    """The checked model of the ``assay.yaml`` at ``path``, and its node tree (for placing later problems)."""
    try:
        if path.is_dir():
            raise ValidationError(f"{path} is a folder: give the assay.yaml file in it")
        if path.stat().st_size > MAX_EVAL_FILE_BYTES:
            raise ValidationError(f"{path}: the file is over {MAX_EVAL_FILE_BYTES // 1024} KiB")
        content = path.read_bytes()
    except OSError as exc:
        raise NotFoundError(f"cannot read {path}: {exc.strerror}") from None
    return parse_eval_file(text_of(content, path.name), path.name)


def parse_eval_file(text: str, source: str) -> tuple[EvalFile, yaml.Node | None]:
    """The checked model of an ``assay.yaml``'s ``text``; :class:`EvalFileError` listing every problem."""
    data, root = load_yaml(text, source)
    if not isinstance(data, dict):
        raise EvalFileError.listing(
            source, [Problem((), f"{source}: must be a mapping of keys (suites, target, ...)")]
        )
    duplicates = _duplicate_keys(root)
    if duplicates:
        raise EvalFileError.listing(source, [placed(source, root, (), message) for message in duplicates])
    try:
        return EvalFile.model_validate(data), root
    except pydantic.ValidationError as exc:
        # In the file's order: pydantic's is the model's.
        errors = sorted(exc.errors(), key=lambda error: line_of(root, tuple(error["loc"])) or 0)
        problems = [_problem(source, root, data, error) for error in errors]
        kept = [problem for problem in problems if problem is not None]
        raise EvalFileError.listing(source, kept or [Problem((), f"{source}: {exc}")]) from None


def placed(source: str, root: yaml.Node | None, loc: Loc, message: str) -> Problem:
    """``message`` about what is at ``loc``, named by the file and that line."""
    line = line_of(root, loc)
    where = f"{source} line {line}" if line is not None else source
    return Problem((), f"{where}: {message}")  # said whole in its message, as the CLI prints it


def line_of(root: yaml.Node | None, loc: Loc) -> int | None:
    """The line of the deepest node of ``loc`` in the tree (a part naming no key, a union's tag, skipped)."""
    node, line = root, root.start_mark.line + 1 if root is not None else None
    for part in loc:
        found = _child(node, part)
        if found is None:
            continue
        key_node, node = found
        line = key_node.start_mark.line + 1
    return line


def _child(node: yaml.Node | None, part: str | int) -> tuple[yaml.Node, yaml.Node] | None:
    """The key node (an item: itself) and value node under ``part``."""
    if isinstance(node, yaml.MappingNode) and isinstance(part, str):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == part:
                return key_node, value_node
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        return node.value[part], node.value[part]
    return None


def _duplicate_keys(root: yaml.Node | None) -> list[str]:
    problems: list[str] = []
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    line = key_node.start_mark.line + 1
                    if key_node.value in seen:
                        problems.append(
                            f"line {line}: the key '{key_node.value}' is given twice (first on line "
                            f"{seen[key_node.value]})"
                        )
                    seen.setdefault(key_node.value, line)
                stack.append(value_node)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return sorted(problems, key=lambda text: int(text.split(":")[0].removeprefix("line ")))


def _data_at(data: Any, loc: Loc) -> tuple[Any, str | None]:
    """The value at ``loc`` and the first union tag met on the way (a part that names no key)."""
    tag = None
    for part in loc:
        found, data = _into(data, part)
        if not found and isinstance(part, str) and tag is None:
            tag = part
    return data, tag


def _into(data: Any, part: str | int) -> tuple[bool, Any]:
    """The value under ``part`` (``True``), or ``data`` itself when ``part`` names none (``False``)."""
    if isinstance(data, dict) and isinstance(part, str) and part in data:
        return True, data[part]
    if isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
        return True, data[part]
    return False, data


def _problem(source: str, root: yaml.Node | None, data: Any, error: Any) -> Problem | None:
    loc: Loc = tuple(error["loc"])
    # A value of a union (a suite: a path or {server_suite}) is said in the branch its shape took.
    last_is_key = error["type"] in ("extra_forbidden", "missing")  # a key the data has not, or should not
    value, tag = _data_at(data, loc[:-1] if last_is_key else loc)
    if tag is not None and _is_model_tag(tag, value) is not isinstance(value, dict):
        return None
    if error["type"] == "extra_forbidden":
        unknown = str(loc[-1])
        keys = _keys_at(loc[:-1])
        near = difflib.get_close_matches(unknown, keys, n=1, cutoff=0.5)
        hint = f"did you mean '{near[0]}'?" if near else f"valid keys: {', '.join(keys)}"
        where = location(_without_tags(data, loc[:-1]))
        return placed(source, root, loc, f"unknown key '{unknown}'{f' in {where}' if where else ''} ({hint})")
    message = str(error["msg"]).removeprefix("Value error, ")
    where = location(_without_tags(data, loc))
    return placed(source, root, loc, f"{where}: {message}" if where else message)


def _is_model_tag(tag: str, value: Any) -> bool:
    """Whether ``tag`` names a union's model branch (pydantic's class name, or a discriminator's value)
    rather than a scalar one (``str``, ``constrained-str``)."""
    return tag[:1].isupper() or (isinstance(value, dict) and value.get("type") == tag)


def _without_tags(data: Any, loc: Loc) -> Loc:
    kept: list[str | int] = []
    for part in loc:
        found, value = _into(data, part)
        # A part naming nothing is a missing key (named) or a union's tag (not).
        if found or not isinstance(part, str) or (isinstance(data, dict) and not _is_model_tag(part, data)):
            kept.append(part)
        data = value
    return tuple(kept)


@functools.cache
def _schema() -> dict[str, Any]:
    return EvalFile.model_json_schema()


def _keys_at(loc: Loc) -> list[str]:
    """The keys the model allows at ``loc`` (its union tags followed), for an unknown key's nearest one."""
    defs = _schema().get("$defs", {})
    node: dict[str, Any] | None = _schema()
    for part in loc:
        node = _step(node, part, defs) if node is not None else None
    node = _resolve(node, defs) if node is not None else None
    return list(node.get("properties", {})) if node is not None else []


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = defs[str(node["$ref"]).rsplit("/", 1)[-1]]
    return node


def _step(node: dict[str, Any], part: str | int, defs: dict[str, Any]) -> dict[str, Any] | None:
    node = _resolve(node, defs)
    options = node.get("oneOf") or node.get("anyOf")
    if options:
        mapping = node.get("discriminator", {}).get("mapping", {})
        if isinstance(part, str) and part in mapping:
            return _resolve({"$ref": mapping[part]}, defs)
        resolved = [_resolve(option, defs) for option in options]
        for option in resolved:
            if option.get("title") == part:
                return option
        for option in resolved:
            found = _step(option, part, defs) if option.get("type") in ("object", "array") else None
            if found is not None:
                return found
        return None
    if isinstance(part, int):
        items = node.get("items")
        return _resolve(items, defs) if isinstance(items, dict) else None
    properties = node.get("properties", {})
    return _resolve(properties[part], defs) if part in properties else None
