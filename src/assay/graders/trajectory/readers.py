"""Reading a trajectory from any dialect Assay knows: one entry point, the dialect detected or hinted.

Detection looks at the document's top-level shape only (docs/trajectories.md#dialects): ``format``
``assay.trajectory/1`` is the normalised form, ``resourceSpans`` OTLP, ``schema_version`` ``ATIF-...`` (or
``steps`` with a ``session_id``) ATIF, an ``output`` list OpenAI Responses, ``choices`` an OpenAI chat
completion; a message list (bare or under ``messages``) is Anthropic when a message holds a ``tool_use`` or
``tool_result`` block, OpenAI chat otherwise; a bare list of typed items is Responses; one message with a
``content`` list is Anthropic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from assay.graders.trajectory import anthropic, atif, openai_chat, openai_responses, otlp
from assay.graders.trajectory.building import is_list
from assay.graders.trajectory.record import FORMAT, JsonValue, Trajectory, TrajectoryProblem, from_json
from assay.graders.trajectory.streaming import UnreadableJsonError

NORMALISED = "assay"

_Reader = Callable[[JsonValue], Trajectory | TrajectoryProblem]


def _read_normalised(value: JsonValue) -> Trajectory | TrajectoryProblem:
    try:
        return from_json(value, raw=value)
    except ValueError as error:
        return TrajectoryProblem(reason=f"is not a normalised trajectory: {error}", dialect=NORMALISED)


READERS: dict[str, _Reader] = {
    openai_chat.DIALECT: openai_chat.read,
    openai_responses.DIALECT: openai_responses.read,
    anthropic.DIALECT: anthropic.read,
    atif.DIALECT: atif.read,
    otlp.DIALECT: otlp.read,
    NORMALISED: _read_normalised,
}
"""Each dialect's reader by its name (the ``dialect`` of the trajectories it reads)."""
DIALECTS: tuple[str, ...] = tuple(READERS)


def _holds_anthropic_tools(message: object) -> bool:
    content = message.get("content") if isinstance(message, Mapping) else None
    return isinstance(content, list) and any(
        isinstance(block, Mapping) and _is_str_in(block.get("type"), anthropic.TOOL_BLOCK_TYPES)
        for block in content
    )


def _messages_dialect(messages: Iterable[object]) -> str:
    """Anthropic when a message holds a ``tool_use`` or ``tool_result`` block, OpenAI chat otherwise."""
    return anthropic.DIALECT if any(_holds_anthropic_tools(m) for m in messages) else openai_chat.DIALECT


def _list_dialect(items: Iterable[object]) -> str | None:
    """The dialect of a bare list, in one pass over it (a streamed list is read once): Responses when an
    item is a Responses item, else a message list's when every item has a ``role``."""
    empty = every_role = True
    tools = False
    for item in items:
        if _is_responses_item(item):
            return openai_responses.DIALECT
        empty = False
        every_role = every_role and isinstance(item, Mapping) and "role" in item
        tools = tools or (every_role and _holds_anthropic_tools(item))
    if empty or not every_role:
        return None
    return anthropic.DIALECT if tools else openai_chat.DIALECT


def _is_responses_item(item: object) -> bool:
    """A function call or its output, or a message whose parts are ``output_text``/``input_text``."""
    if not isinstance(item, Mapping):
        return False
    kind = item.get("type")
    if kind == "message":
        content = item.get("content")
        return isinstance(content, list) and any(
            isinstance(part, Mapping) and part.get("type") in ("output_text", "input_text")
            for part in content
        )
    return _is_str_in(kind, openai_responses.ITEM_TYPES)


def _is_str_in(value: object, kinds: frozenset[str] | set[str] | tuple[str, ...]) -> bool:
    """Whether a document's ``type`` is one of ``kinds`` (any JSON value may stand there: a list is not
    hashable, so it is never looked up in a set)."""
    return isinstance(value, str) and value in kinds


def detect(value: JsonValue) -> str | None:
    """The dialect a parsed JSON document is written in, by its top-level shape; ``None`` if none fits."""
    if is_list(value):
        return _list_dialect(value)
    if not isinstance(value, Mapping):
        return None
    if value.get("format") == FORMAT:
        return NORMALISED
    if "resourceSpans" in value:
        return otlp.DIALECT
    version = value.get("schema_version")
    if (isinstance(version, str) and version.startswith("ATIF")) or (
        "steps" in value and "session_id" in value
    ):
        return atif.DIALECT
    if is_list(value.get("output")):
        return openai_responses.DIALECT
    if "choices" in value:
        return openai_chat.DIALECT
    messages = value.get("messages")
    if is_list(messages):
        return _messages_dialect(messages)
    if isinstance(value.get("content"), list) and "role" in value:
        return anthropic.DIALECT
    return None


def read_trajectory(value: JsonValue, dialect: str | None = None) -> Trajectory | TrajectoryProblem:
    """The trajectory a parsed JSON document holds, in ``dialect`` or the one detected. Never raises.

    A document in no known dialect, or departing from its dialect's shape, is a problem with its reason.
    """
    if dialect is not None and dialect not in READERS:
        return TrajectoryProblem(
            reason=f"names an unknown dialect {dialect[:60]!r} (known: {', '.join(DIALECTS)})"
        )
    try:
        chosen = dialect or detect(value)
    except UnreadableJsonError as error:
        return TrajectoryProblem(reason=f"is not JSON ({error})")
    except (RecursionError, MemoryError):
        return TrajectoryProblem(reason="is nested too deeply to read")
    except Exception as error:  # a bug in detection must not crash grading either
        return TrajectoryProblem(reason=f"could not be read ({type(error).__name__})")
    if chosen is None:
        return TrajectoryProblem(reason="is in no known dialect (" + ", ".join(DIALECTS) + ")")
    try:
        return READERS[chosen](value)
    except UnreadableJsonError as error:  # a streamed list whose text does not parse
        return TrajectoryProblem(reason=f"is not JSON ({error})", dialect=chosen)
    except (RecursionError, MemoryError):
        return TrajectoryProblem(reason="is nested too deeply to read", dialect=chosen)
    except Exception as error:  # a reader's bug must not crash grading: the trajectory is then unreadable
        return TrajectoryProblem(reason=f"could not be read ({type(error).__name__})", dialect=chosen)
