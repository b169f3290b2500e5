"""Secrets taken out of what comes back: one step for every reply a target or a grader's call reads.

A target sends secrets (``{{secret.NAME}}`` in headers or body, an OpenAI key, a judge's key) and an agent
may echo them. Every reply body is redacted as it is read, in :class:`~assay.targets.http.HttpSession`,
before anything is parsed from it: answers, raw replies shown by a test of a target, error details, stored
rows, exports and logs all derive from the redacted bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import orjson

REDACTED = "[redacted]"


@dataclass(frozen=True, slots=True)
class Redactor:
    """Replaces every copy of some secret values, raw and as JSON escapes them."""

    forms: tuple[bytes, ...] = ()

    @classmethod
    def of(cls, secrets: Iterable[str | None]) -> Redactor:
        """A redactor of ``secrets`` (``None`` and empty values ignored)."""
        forms: set[bytes] = set()
        for secret in secrets:
            if secret:
                forms.add(secret.encode())
                forms.add(orjson.dumps(secret)[1:-1])
        # Longest first: a secret that contains another is replaced whole.
        return cls(tuple(sorted(forms, key=len, reverse=True)))

    def __bool__(self) -> bool:
        return bool(self.forms)

    def bytes(self, data: bytes) -> bytes:
        """``data`` with every copy replaced by :data:`REDACTED`."""
        for form in self.forms:
            if form in data:
                data = data.replace(form, REDACTED.encode())
        return data

    def text(self, text: str) -> str:
        """``text`` with every copy replaced by :data:`REDACTED`."""
        if not self.forms:
            return text
        return self.bytes(text.encode(errors="surrogatepass")).decode(errors="surrogatepass")
