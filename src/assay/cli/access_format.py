"""``assay serve``'s access lines, as Uvicorn's ``AccessFormatter`` writes them, made for less.

The access log writes a line per request: Uvicorn's formatter copies the log record twice (its own copy,
then its colour formatter's) and looks the status phrase up each time, about half of the line's cost and
a tenth of a small request's (bench/README.md, issue 30). Without colours (a file or a pipe: a server's log)
this one fills the same format from the record's fields; with colours it is Uvicorn's.
"""

from __future__ import annotations

import logging

from uvicorn.logging import AccessFormatter


class AccessLineFormatter(AccessFormatter):
    """Uvicorn's access line, without copying the record and with each status phrase looked up once."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._statuses: dict[object, str] = {}
        self._is_plain = not self.use_colors and type(self._style) is logging.PercentStyle

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        """The line, as ``AccessFormatter.formatMessage`` makes it."""
        if not self._is_plain or not isinstance(record.args, tuple) or len(record.args) != 5:
            return super().formatMessage(record)
        client_addr, method, full_path, http_version, status_code = record.args
        status = self._statuses.get(status_code)
        if status is None:
            status = self._statuses[status_code] = self.get_status_code(int(status_code))  # type: ignore[call-overload]
        levelname = record.levelname
        values = {
            **record.__dict__,
            "levelprefix": levelname + ":" + " " * (8 - len(levelname)),
            "client_addr": client_addr,
            "request_line": f"{method} {full_path} HTTP/{http_version}",
            "status_code": status,
        }
        line: str = self._style._fmt % values
        return line
