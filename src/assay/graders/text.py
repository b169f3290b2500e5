"""How a grader reads any input as text, the same way in every grader (D11)."""

from __future__ import annotations


def read_text(value: object) -> str:
    """The text a grader compares: ``None`` is empty, a bool its lowercase name, anything else ``str()``."""
    if type(value) is str:
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return str.__str__(value)
    try:
        return str(value)
    except Exception:  # an object whose __str__ fails is still graded, as an unreadable value
        return f"<unprintable {type(value).__name__}>"


def excerpt(text: str, limit: int = 60) -> str:
    """``text`` quoted for a reason sentence, cut to ``limit`` characters (a reason stays one short line)."""
    return repr(text if len(text) <= limit else text[:limit] + "…")
