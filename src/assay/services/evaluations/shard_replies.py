"""The reply cache as one shard of an evaluation sees it: the cached replies to its cases read in one query
before it runs, the agent's new answers written with its results.

A lookup is then a dictionary's (no database call on the event loop), and a new reply costs no transaction
of its own: :meth:`ShardReplies.drain` hands them to the shard's result writer, which stores them in the
transaction of its batch (:func:`assay.storage.reply_cache.store_replies`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from sqlalchemy.orm import Session

from assay.storage.reply_cache import StoredReply, cached_replies
from assay.targets.reply_cache import CachedReply, reply_key


class ShardReplies:
    """The cached replies of a shard's inputs, and the new ones waiting to be stored."""

    def __init__(self, known: dict[bytes, CachedReply]) -> None:
        self._known = known
        self._new: list[tuple[bytes, StoredReply]] = []
        self._lock = threading.Lock()  # put on the event loop, drained by the writer's thread

    @classmethod
    def read(cls, session: Session, fingerprint: str, asked: Sequence[tuple[str, int]]) -> ShardReplies:
        """The cache's replies to ``asked`` ``(input, repeat)`` from the target of ``fingerprint``."""
        keys = {reply_key(fingerprint, text, repeat) for text, repeat in asked}
        found = cached_replies(session, keys)
        return cls({key: CachedReply(*stored) for key, stored in found.items()})

    def get(self, key: bytes) -> CachedReply | None:
        """The cached reply under ``key``, if the shard's read found one (or the shard stored it since)."""
        return self._known.get(key)

    def put(self, key: bytes, reply: CachedReply) -> None:
        """Keep ``reply`` to be stored with the next batch of results."""
        if key in self._known:
            return
        self._known[key] = reply
        with self._lock:
            self._new.append((key, (reply.output, reply.latency_ms, reply.trajectory)))

    def drain(self) -> list[tuple[bytes, StoredReply]]:
        """The new replies not yet stored, handed over once."""
        with self._lock:
            new, self._new = self._new, []
        return new
