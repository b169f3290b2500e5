"""A target that calls a Python function ``module:function`` with the case input (CLI only): a string, or
a conversation's messages as a list of OpenAI chat-format dicts (docs/conversations.md)."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import sys
from collections.abc import Callable
from typing import Any

from assay.errors import Problem, ValidationError
from assay.targets.base import Target, TargetCase, response_text
from assay.targets.raw import RawReply, keep_raw
from assay.targets.reasons import ErrorReason, TargetCallError
from assay.targets.retry import RetryPolicy
from assay.targets.specs import PythonTargetSpec

_WHERE = ("target", "python", "callable")


def load_callable(reference: str) -> Callable[..., Any]:
    """The object ``module:attr.path`` names, importable from the working directory too."""
    module_name, _, attribute = reference.partition(":")
    if os.getcwd() not in sys.path:  # like `python -m`, let users point at a module next to their suite
        sys.path.insert(0, os.getcwd())
    try:
        value: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError) as exc:
        raise ValidationError.of(Problem(_WHERE, f"cannot load {reference}: {exc}")) from exc
    if not callable(value):
        raise ValidationError.of(Problem(_WHERE, f"{reference} is not callable"))
    return value  # type: ignore[no-any-return]


class PythonTarget(Target):
    """Awaits an async function, or runs a plain one in a worker thread so it cannot block the others.

    A plain function that overruns its timeout is abandoned, not stopped: Python cannot kill a thread.
    """

    def __init__(self, spec: PythonTargetSpec, function: Callable[..., Any] | None = None) -> None:
        """``function`` is called instead of the one ``spec`` names (the Python API's, given as an object)."""
        super().__init__(RetryPolicy(attempts=spec.max_attempts, timeout=spec.timeout))
        self._name = spec.callable
        self._function = function if function is not None else load_callable(spec.callable)
        self._is_async = inspect.iscoroutinefunction(self._function)

    async def call(self, case: TargetCase) -> str | None:
        """One call of the function; an exception it raises ends the case as ``callable_error``."""
        asked: str | list[dict[str, Any]] = case.input if case.messages is None else case.chat()
        try:
            if self._is_async:
                result = await self._function(asked)
            else:
                result = await asyncio.to_thread(self._function, asked)
        except Exception as exc:
            raise TargetCallError(ErrorReason.CALLABLE_ERROR.value, f"{type(exc).__name__}: {exc}") from exc
        keep_raw(lambda: RawReply.of(f"return value of {self._name}", repr(result)))
        return response_text(result)
