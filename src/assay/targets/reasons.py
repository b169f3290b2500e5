"""Machine-readable reasons why a case ended without an agent response."""

from __future__ import annotations

from enum import StrEnum

DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024
"""The size cap of an answer unless the process's :class:`~assay.targets.policy.TargetPolicy` sets another
(here beside :func:`cut_answer`, so a target needs no policy, nor its egress rules, to know it)."""


class ErrorReason(StrEnum):
    """Why a target gave no usable response; stored in ``results.error``."""

    TIMEOUT_AFTER_RETRIES = "timeout_after_retries"
    CONNECTION_ERROR_AFTER_RETRIES = "connection_error_after_retries"
    BAD_RESPONSE = "bad_response"
    NO_RECORDED_RESPONSE = "no_recorded_response"
    CALLABLE_ERROR = "callable_error"
    COMMAND_FAILED = "command_failed"
    TEMPLATE_ERROR = "template_error"
    TARGET_ERROR = "target_error"
    ANSWER_TOO_LARGE = "answer_too_large"
    EGRESS_REFUSED = "egress_refused"
    HTTP_REDIRECT = "http_redirect"
    SECRET_UNAVAILABLE = "secret_unavailable"
    """A grader's call names a key its process may not read, or one that is unset (checked again per call)."""
    BAD_REQUEST = "bad_request"
    """A grader's request could not be encoded (never sent)."""
    CACHE_MISS = "cache_miss"
    """A run that only replays the reply cache found no reply for the case (the agent is never called)."""
    CONVERSATION_TIMEOUT = "conversation_timeout"
    """A multi-turn case's turns together took longer than its ``max_seconds`` (docs/conversations.md)."""


def http_reason(status: int, *, retried: bool) -> str:
    """``http_503_after_retries`` for a status that was retried until giving up, ``http_400`` otherwise."""
    return f"http_{status}_after_retries" if retried else f"http_{status}"


class TargetCallError(Exception):
    """One failed attempt: its reason, whether it is worth retrying and how long the server asked to wait.

    ``reason`` is the base reason (``timeout``, ``connection_error``, ``http_503``...); the retry policy turns
    it into the final one (``timeout_after_retries``) when it gives up.
    """

    def __init__(
        self,
        reason: str,
        detail: str = "",
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        output: str | None = None,
    ) -> None:
        super().__init__(detail or reason)
        self.reason = reason
        self.detail = detail
        self.retryable = retryable
        self.retry_after = retry_after
        self.output = output
        """What the agent did answer, when the failure still leaves one to store (a cut answer)."""
        self.attempts = 1

    @property
    def final_reason(self) -> str:
        """The reason as stored: retryable failures say that retries were exhausted."""
        return f"{self.reason}_after_retries" if self.retryable else self.reason


def timeout_failure(seconds: float) -> TargetCallError:
    """A call that did not finish within its timeout (always worth retrying)."""
    return TargetCallError("timeout", f"no reply within {seconds:g} s", retryable=True)


def cut_answer(text: str, max_bytes: int) -> TargetCallError | None:
    """``answer_too_large`` carrying ``text`` cut to ``max_bytes`` of UTF-8; ``None`` when it fits."""
    if len(text) <= max_bytes // 4:  # four bytes per character at most: no need to encode
        return None
    encoded = text.encode(errors="surrogatepass")
    if len(encoded) <= max_bytes:
        return None
    cut = encoded[:max_bytes].decode(errors="ignore")
    return TargetCallError(
        ErrorReason.ANSWER_TOO_LARGE.value,
        f"answer of {len(encoded):,} bytes is over the {max_bytes:,}-byte cap (ASSAY_MAX_ANSWER_BYTES)",
        output=cut,
    )
