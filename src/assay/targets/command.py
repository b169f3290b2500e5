"""A target that runs a shell command per case: the input on stdin, the answer on stdout (CLI only)."""

from __future__ import annotations

import asyncio
import os
import signal
from contextlib import suppress

from assay.targets.base import Target, TargetCase
from assay.targets.raw import RawReply, keep_raw
from assay.targets.reasons import ErrorReason, TargetCallError
from assay.targets.retry import RetryPolicy
from assay.targets.specs import CommandTargetSpec

_STDERR_CHARS = 200


class CommandTarget(Target):
    """Runs ``command`` through the shell with ``ASSAY_CASE_NUMBER``, ``ASSAY_CASE_KEY`` (empty without keys)
    and ``ASSAY_CASE_ID`` set; a non-zero exit is ``command_failed``."""

    def __init__(self, spec: CommandTargetSpec) -> None:
        super().__init__(RetryPolicy(attempts=spec.max_attempts, timeout=spec.timeout))
        self._command = spec.command

    async def call(self, case: TargetCase) -> str | None:
        """One run of the command; its whole process group is killed if it overruns the timeout."""
        process = await asyncio.create_subprocess_shell(
            self._command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={
                **os.environ,
                "ASSAY_CASE_NUMBER": str(case.place),
                "ASSAY_CASE_KEY": case.key or "",
                "ASSAY_CASE_ID": str(case.case_id),
            },
            start_new_session=True,  # its own process group, so a timeout kills the children too
        )
        try:
            stdout, stderr = await process.communicate(case.input.encode())
        finally:
            if process.returncode is None:
                with suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
        keep_raw(
            lambda: RawReply.of(
                f"standard output of the command (exit status {process.returncode})",
                stdout.decode(errors="replace"),
            )
        )
        if process.returncode != 0:
            tail = stderr.decode(errors="replace")[-_STDERR_CHARS:]
            raise TargetCallError(
                ErrorReason.COMMAND_FAILED.value, f"exit status {process.returncode}: {tail}"
            )
        return stdout.decode(errors="replace").removesuffix("\n").removesuffix("\r")
