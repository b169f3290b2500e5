"""A target in front of another that answers from the reply cache (:mod:`assay.targets.reply_cache`).

``record`` (``--cache``) reuses a stored reply and stores each new answer; ``replay`` (``--replay``) only
reuses, and a case with no stored reply fails closed (``cache_miss``): the agent is never called. Errors are
never stored. A reply from the cache is marked ``cached`` and keeps the latency the agent had.

A reply that captures a trajectory is stored once the runner has read it
(:meth:`CachedTarget.keep_trajectory`), with a copy of the trajectory; a stored one is given back with it,
unpacked on the heavy-work thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from assay.targets.base import Target, TargetCase, TargetReply
from assay.targets.heavy_thread import in_heavy_thread
from assay.targets.reasons import ErrorReason
from assay.targets.reply_cache import (
    CachedReply,
    ReplyCache,
    ReplyStore,
    pack_trajectory,
    reply_key,
    unpack_trajectory,
)
from assay.targets.templates import asked_text

if TYPE_CHECKING:
    from assay.targets.specs import TargetSpec


class CacheMode(StrEnum):
    """How a run uses the reply cache."""

    OFF = "off"
    """Not at all: every case calls the agent, nothing is stored."""
    RECORD = "record"
    """Reuse a stored reply; call the agent on a miss and store its answer."""
    REPLAY = "replay"
    """Reuse a stored reply; a miss is an error, the agent is never called."""


_MISS = TargetReply(
    None,
    error=ErrorReason.CACHE_MISS.value,
    error_detail="no cached reply for this case and target (--replay calls no agent)",
    attempts=0,
)


class CachedTarget(Target):
    """Answers from ``cache`` what it holds for ``fingerprint``; asks ``inner`` the rest (``record``)."""

    def __init__(
        self,
        inner: Target,
        cache: ReplyStore,
        fingerprint: str,
        mode: CacheMode,
        fields: tuple[str, ...] = (),
    ) -> None:
        super().__init__(inner.policy, max_answer_bytes=inner.max_answer_bytes, redactor=inner.redactor)
        self._inner = inner
        self._cache = cache
        self._fingerprint = fingerprint
        self._mode = mode
        self._fields = fields
        """The case's fields the target sends besides what it asks (``case_fields``): part of the key."""
        self.traces = inner.traces  # the spans of the inner target's calls arrive where they did

    async def call(self, case: TargetCase) -> str | None:  # pragma: no cover - respond() never calls it
        return await self._inner.call(case)

    def reply_at_once(self, case: TargetCase) -> TargetReply | None:
        """A stored reply without a coroutine (not one with a trajectory: unpacked off the event loop); in
        ``replay`` a miss too (nothing is awaited)."""
        stored = self._cache.get(reply_key(self._fingerprint, asked_text(case, self._fields), case.repeat))
        if stored is None:
            return _MISS if self._mode is CacheMode.REPLAY else None
        return None if stored.trajectory is not None else _reply(stored)

    async def respond(self, case: TargetCase, proceed: Callable[[], bool] | None = None) -> TargetReply:
        """The stored reply, else (``record``) the agent's, stored when it is an answer (one capturing a
        trajectory once its trajectory is read: :meth:`keep_trajectory`)."""
        # Hashed once: for the lookup and the store.
        key = reply_key(self._fingerprint, asked_text(case, self._fields), case.repeat)
        stored = self._cache.get(key)
        if stored is not None:
            reply = _reply(stored)
            if stored.trajectory is not None:
                reply.trajectory = await in_heavy_thread(unpack_trajectory, stored.trajectory)
            return reply
        if self._mode is CacheMode.REPLAY:
            return _MISS
        reply = await self._inner.respond(case, proceed)
        if reply.error is None and reply.capture is None:
            self._cache.put(key, CachedReply(reply.output, reply.latency_ms))
        return reply

    async def keep_trajectory(self, case: TargetCase, reply: TargetReply) -> None:
        """Store the agent's reply with its read trajectory; not one whose trajectory did not read, or is over
        the cap: a rerun asks again rather than grade it without its trajectory."""
        if self._mode is not CacheMode.RECORD or reply.cached or reply.error is not None:
            return
        packed = await in_heavy_thread(pack_trajectory, reply.trajectory)
        if packed is not None:
            key = reply_key(self._fingerprint, asked_text(case, self._fields), case.repeat)
            self._cache.put(key, CachedReply(reply.output, reply.latency_ms, packed))

    async def aclose(self) -> None:
        """Close the inner target (the cache belongs to whoever opened it)."""
        await self._inner.aclose()


def _reply(stored: CachedReply) -> TargetReply:
    return TargetReply(stored.output, latency_ms=stored.latency_ms, attempts=0, cached=True)


@dataclass(frozen=True, slots=True)
class CacheUse:
    """A run's use of a reply cache: which one, and how."""

    cache: ReplyCache
    mode: CacheMode

    def around(self, target: Target, spec: TargetSpec) -> Target:
        """``target`` behind the cache; as it is for a target that calls no agent (recorded answers)."""
        from assay.targets.specs import EvaluationTargetSpec, RecordedTargetSpec, case_fields

        if isinstance(spec, RecordedTargetSpec | EvaluationTargetSpec):
            return target
        return CachedTarget(target, self.cache, spec.fingerprint(), self.mode, case_fields(spec))
