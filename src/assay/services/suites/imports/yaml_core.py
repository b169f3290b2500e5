"""YAML read as promptfoo reads it (js-yaml: the YAML 1.2 core schema), with line numbers, aliases bounded.

The schema decides values: in YAML 1.1 (PyYAML's) ``yes``, ``no``, ``on`` and ``off`` are booleans, ``012`` is
octal and ``1:20`` is 80, while promptfoo's ``value: yes`` is the text ``yes``. Only the scalars' resolution
changes; the parser is PyYAML's safe one. Documents keep their node tree, so each test is named by its line.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

from assay.services.suites.imports.reading import refuse

__all__ = ["MAX_YAML_NODES", "CoreLoader", "child", "item_lines", "line_at", "load_yaml"]

MAX_YAML_NODES = 5_000_000
"""Values a document may hold once its aliases are expanded."""


class CoreLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no types
    """PyYAML's safe loader resolving plain scalars by the YAML 1.2 core schema."""


CoreLoader.yaml_implicit_resolvers = {
    key: [
        (tag, regexp)
        for tag, regexp in resolvers
        if tag in ("tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:merge")
    ]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_CORE = (
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+.0123456789"),
    ),
)
for _tag, _pattern, _first in _CORE:
    CoreLoader.add_implicit_resolver(_tag, re.compile(_pattern), _first)


def _int(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    text = str(loader.construct_scalar(node))
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)  # a leading zero is decimal in YAML 1.2


def _float(loader: yaml.SafeLoader, node: yaml.Node) -> float:
    text = str(loader.construct_scalar(node)).lower()
    if text.endswith(".inf"):
        return -math.inf if text.startswith("-") else math.inf
    if text == ".nan":
        return math.nan
    return float(text)


def _bool(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    return str(loader.construct_scalar(node)).lower() == "true"


CoreLoader.add_constructor("tag:yaml.org,2002:int", _int)
CoreLoader.add_constructor("tag:yaml.org,2002:float", _float)
CoreLoader.add_constructor("tag:yaml.org,2002:bool", _bool)


def load_yaml(text: str, source: str) -> tuple[Any, yaml.Node | None]:
    """The document and its node tree (for line numbers); one clear error when it is not YAML."""
    try:
        loader = CoreLoader(text)  # its reader refuses control characters at once
    except yaml.YAMLError as exc:
        said = " ".join(str(exc).split())  # one line: it names the character and its position
        raise refuse(source, None, f"not valid YAML ({said})") from None
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


def child(node: yaml.Node | None, key: str) -> yaml.Node | None:
    """The value node under ``key`` of a mapping node, else ``None``."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
                return value_node
    return None


def item_lines(node: yaml.Node | None) -> list[int]:
    """The line each item of a sequence node starts on."""
    if isinstance(node, yaml.SequenceNode):
        return [item.start_mark.line + 1 for item in node.value]
    return []


def line_at(lines: list[int], index: int, fallback: int) -> int:
    """``lines[index]``, or ``fallback`` past its end (an item with no node: a CSV row)."""
    return lines[index] if index < len(lines) else fallback
