"""A scratch database: SQLite in a temporary file, for what ``assay run`` would otherwise hold in memory.

SQLite's own temporary database (an empty file name) lives in its page cache until the cache is full, then
spills to a file it deletes when the connection closes (even when the process is killed), so memory stays
within the cache size whatever the number of rows.
"""

from __future__ import annotations

import sqlite3

CACHE_KIB = 16 * 1024


def scratch_database() -> sqlite3.Connection:
    """A new temporary database, in autocommit mode (callers group their writes in ``BEGIN``/``COMMIT``)."""
    connection = sqlite3.connect("", isolation_level=None, check_same_thread=False)
    connection.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
    connection.execute("PRAGMA journal_mode = OFF")
    connection.execute("PRAGMA synchronous = OFF")
    return connection
