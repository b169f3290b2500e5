"""A target that answers from responses recorded in advance; nothing is called."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import orjson

from assay.targets.base import Target, TargetCase, TargetReply, response_text
from assay.targets.raw import RawReply, keep_raw
from assay.targets.reasons import DEFAULT_MAX_ANSWER_BYTES, ErrorReason, TargetCallError, cut_answer

if TYPE_CHECKING:
    from assay.targets.specs import RecordedTargetSpec

_MISSING = TargetReply(
    None, error=ErrorReason.NO_RECORDED_RESPONSE.value, error_detail="no recorded response for this case"
)


class RecordedTarget(Target):
    """Looks each case up by name in ``responses`` (its key in a keyed suite, else its number), else in
    its metadata under ``metadata_key``.

    ``responses`` may be filled as the cases come: answers read from a file (``assay run`` holds only those of
    the cases in flight)."""

    def __init__(
        self,
        responses: Mapping[str, str | None],
        *,
        metadata_key: str | None = None,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
    ) -> None:
        super().__init__(max_answer_bytes=max_answer_bytes)
        self._responses = responses
        self._metadata_key = metadata_key

    @classmethod
    def of(
        cls, spec: RecordedTargetSpec, *, max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    ) -> RecordedTarget:
        """The target ``spec`` describes."""
        return cls(spec.responses, metadata_key=spec.metadata_key, max_answer_bytes=max_answer_bytes)

    def _lookup(self, case: TargetCase) -> tuple[bool, str | None]:
        key = case.name
        if key in self._responses:
            keep_raw(lambda: RawReply.of(f"responses[{key!r}]", self._responses[key]))
            return True, self._responses[key]
        if self._metadata_key is not None and self._metadata_key in case.metadata:
            value = case.metadata[self._metadata_key]
            keep_raw(lambda: RawReply.of(f"metadata[{self._metadata_key!r}]", orjson.dumps(value).decode()))
            return True, response_text(value)
        return False, None

    async def call(self, case: TargetCase) -> str | None:
        """The recorded response; ``no_recorded_response`` when there is none."""
        found, response = self._lookup(case)
        if not found:
            raise TargetCallError(
                ErrorReason.NO_RECORDED_RESPONSE.value, "no recorded response for this case"
            )
        return response

    async def respond(self, case: TargetCase, proceed: Callable[[], bool] | None = None) -> TargetReply:
        """The recorded reply at once (see :meth:`reply_at_once`)."""
        return self.reply_at_once(case)

    def reply_at_once(self, case: TargetCase) -> TargetReply:
        """The recorded reply: no timeout, retries or timing, which would only cost time here."""
        found, response = self._lookup(case)
        if not found:
            return _MISSING
        too_large = cut_answer(response, self.max_answer_bytes) if response is not None else None
        if too_large is not None:
            return TargetReply(too_large.output, error=too_large.reason, error_detail=too_large.detail)
        return TargetReply(response)
