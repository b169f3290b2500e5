"""``assay serve``'s access lines are Uvicorn's, character for character, however they are made."""

from __future__ import annotations

import logging

import pytest
from uvicorn.config import LOGGING_CONFIG
from uvicorn.logging import AccessFormatter

from assay.cli.access_format import AccessLineFormatter

FORMAT = LOGGING_CONFIG["formatters"]["access"]["fmt"]


def _record(args: tuple[object, ...], level: int = logging.INFO) -> logging.LogRecord:
    return logging.LogRecord("assay.access", level, __file__, 1, '%s - "%s %s HTTP/%s" %d', args, None)


@pytest.mark.parametrize("use_colors", [False, True])
@pytest.mark.parametrize(
    "args",
    [
        ("127.0.0.1:5000", "GET", "/api/graders?limit=1", "1.1", 200),
        ("[::1]:80", "POST", "/api/graders/true-false/grade", "1.1", 422),
        ("", "DELETE", "/api/evaluations/3", "2", 599),  # a status with no phrase
        ("10.0.0.1:1", "GET", "/%25", "1.0", 404),
    ],
)
@pytest.mark.parametrize("level", [logging.INFO, logging.WARNING])
def test_a_line_is_uvicorns(args: tuple[object, ...], use_colors: bool, level: int) -> None:
    ours = AccessLineFormatter(fmt=FORMAT, use_colors=use_colors)
    uvicorns = AccessFormatter(fmt=FORMAT, use_colors=use_colors)
    for _ in range(2):  # the second time from the phrases looked up the first
        assert ours.format(_record(args, level)) == uvicorns.format(_record(args, level))


def test_a_format_with_other_fields_is_filled_too() -> None:
    fmt = "%(name)s %(levelprefix)s %(status_code)s %(request_line)s|%(client_addr)s"
    args = ("127.0.0.1:5000", "GET", "/", "1.1", 200)
    ours = AccessLineFormatter(fmt=fmt, use_colors=False).format(_record(args))
    assert ours == AccessFormatter(fmt=fmt, use_colors=False).format(_record(args))
    assert ours == "assay.access INFO:     200 OK GET / HTTP/1.1|127.0.0.1:5000"
