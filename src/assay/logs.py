"""Loggers made on first use: ``logging`` costs milliseconds to import, and the paths that ``assay run``
loads log only when something goes wrong (start-up time, issue 11)."""

from __future__ import annotations


class LazyLogger:
    """``logging.getLogger(name)``, looked up when a message is logged."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def warning(self, message: str, *args: object, exc_info: bool = False) -> None:
        import logging

        logging.getLogger(self._name).warning(message, *args, exc_info=exc_info, stacklevel=2)

    def error(self, message: str, *args: object, exc_info: bool = False) -> None:
        import logging

        logging.getLogger(self._name).error(message, *args, exc_info=exc_info, stacklevel=2)
