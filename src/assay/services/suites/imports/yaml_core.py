"""YAML read as promptfoo reads it (js-yaml: the YAML 1.2 core schema), not as PyYAML's YAML 1.1 does.

The difference decides values: in YAML 1.1 ``yes``, ``no``, ``on`` and ``off`` are booleans, ``012`` is octal
and ``1:20`` is 80, while promptfoo's ``value: yes`` is the text ``yes``. Only the scalars' resolution
changes; the parser is PyYAML's safe one.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

__all__ = ["CoreLoader"]


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
