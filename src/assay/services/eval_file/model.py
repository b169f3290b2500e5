"""The model of an ``assay.yaml``: one eval described in one file (docs/eval-file.md).

Strict: an unknown key anywhere is an error (:mod:`assay.services.eval_file.loading` names its line and the
nearest valid key), and values are not coerced (``"0.9"`` is not a rate). Targets are the API's own specs
(:mod:`assay.targets.specs`), plus a recorded answers file; assertions and rules are read by the checker the
suite files use (:func:`~assay.graders.composite.assertions.read_suite_assertions`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, WithJsonSchema, model_validator

from assay.config import USD, PriceTable
from assay.domain import MAX_REPEATS
from assay.graders.composite.assertions import ASSERTION_LIST_SCHEMA, RULE_LIST_SCHEMA
from assay.services.figures.limits import SpendLimits
from assay.targets.specs import (
    CommandTargetSpec,
    EvaluationTargetSpec,
    HttpTargetSpec,
    OpenAITargetSpec,
    PythonTargetSpec,
    RecordedTargetSpec,
    WebUrl,
)

__all__ = [
    "AssertionGate",
    "EvalFile",
    "EvalTarget",
    "Gates",
    "GraderChoice",
    "KGate",
    "MetadataGate",
    "Outputs",
    "ResponsesFileTarget",
    "ServerSuite",
    "SuiteRef",
]

DEFAULT_GRADER = "string-match"
"""The grader of cases no assertion reaches, when the file names none."""


class _Strict(BaseModel):
    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, use_attribute_docstrings=True, validate_by_name=True
    )


Rate = Annotated[float, Field(ge=0, le=1)]
"""A pass rate, 0 to 1."""
MetadataValue = str | int | float | bool


class ServerSuite(_Strict):
    """A suite stored on an Assay server, by id (run there: ``POST /api/evals``)."""

    server_suite: int = Field(ge=1, le=2**31 - 1)
    """The suite's id on the server."""


SuiteRef = Annotated[str, Field(min_length=1, max_length=4096)] | ServerSuite
"""A suite file (JSONL, CSV or JSON; relative to the ``assay.yaml``'s folder) or a server's suite."""


class ResponsesFileTarget(_Strict):
    """Recorded answers in a file, as ``assay run --responses``: JSONL/CSV rows with ``agent_response``, each
    naming its case by key (or number). Nothing is called."""

    type: Literal["responses"]
    path: str = Field(min_length=1, max_length=4096)
    """The answers file, relative to the ``assay.yaml``'s folder."""


EvalTarget = Annotated[
    HttpTargetSpec
    | OpenAITargetSpec
    | RecordedTargetSpec
    | EvaluationTargetSpec
    | PythonTargetSpec
    | CommandTargetSpec
    | ResponsesFileTarget,
    Field(discriminator="type"),
]
"""What answers the cases: the targets of the API and ``assay run`` (``http``, ``openai``, ``recorded``,
``evaluation``: a server's re-grading, ``python``, ``command``), or recorded answers in a file."""


class GraderChoice(_Strict):
    """The grader of cases that no assertion reaches (the evaluation's grader)."""

    id: str = Field(min_length=1, max_length=100)
    """A registered grader's id (``assay graders``)."""
    config: dict[str, JsonValue] | None = None
    """The grader's config (default: its defaults)."""
    preset: str | None = Field(default=None, min_length=1, max_length=100)
    """A named config of the grader, instead of ``config``."""

    @model_validator(mode="after")
    def _one_config(self) -> GraderChoice:
        if self.config is not None and self.preset is not None:
            raise ValueError("give config or preset, not both (a preset is a whole config)")
        return self


class Outputs(_Strict):
    """Files the eval writes, relative to the ``assay.yaml``'s folder; each is rewritten by every run."""

    results: str | None = Field(default=None, min_length=1, max_length=4096)
    """Each result as a JSON line, as ``assay run --output`` writes it."""
    junit: str | None = Field(default=None, min_length=1, max_length=4096)
    """A JUnit XML report, for CI."""


class MetadataGate(_Strict):
    """A pass rate the cases with a metadata value must reach."""

    key: str = Field(min_length=1, max_length=200)
    """The metadata key (e.g. ``lang``)."""
    value: MetadataValue | None = None
    """The value (e.g. ``de``); left out, the gate holds for each value the key takes."""
    min_pass_rate: Rate
    """The least pass rate, 0 to 1, over those cases."""


class AssertionGate(_Strict):
    """A pass rate an assertion's verdicts must reach (by its name, as the summary lists it)."""

    assertion: str = Field(min_length=1, max_length=100)
    """The assertion's name (its ``name``, else its grader id)."""
    min_pass_rate: Rate
    """The least pass rate, 0 to 1, over the cases it graded."""


class KGate(_Strict):
    """A least pass@k or pass^k over every case of every suite (with ``repeats``; ``k`` at most them)."""

    k: int = Field(ge=1, le=MAX_REPEATS)
    """How many of a case's runs are drawn."""
    min_rate: Rate
    """The least pass@k (some of ``k`` runs pass) or pass^k (all ``k`` pass), 0 to 1."""


class Gates(_Strict):
    """When the eval passes (exit 0); with none, every case must pass, as ``assay run`` without a gate."""

    min_pass_rate: Rate | None = None
    """The least pass rate over every case of every suite (with repeats: over every run)."""
    by_metadata: list[MetadataGate] = Field(default_factory=list, max_length=100)
    """Pass rates by metadata value."""
    by_assertion: list[AssertionGate] = Field(default_factory=list, max_length=100)
    """Pass rates by assertion."""
    max_failures_per_case: int | None = Field(default=None, ge=0, le=MAX_REPEATS)
    """With repeats: no case may fail more than this many of its runs (0: every run of every case passes)."""
    pass_at_k: list[KGate] = Field(default_factory=list, max_length=100)
    """With repeats: least pass@k values (the chance that ``k`` runs of a case hold a pass)."""
    pass_hat_k: list[KGate] = Field(default_factory=list, max_length=100)
    """With repeats: least pass^k values (the chance that ``k`` runs of a case all pass)."""

    max_cost_usd: USD | None = None
    """The most every case of every suite may cost in all, in US dollars (agent and judge); an unknown cost
    (no price, no tokens) misses it."""
    max_cost_per_case_usd: USD | None = None
    """The most one case may cost, in US dollars; an unknown cost misses it."""
    max_latency_p95_ms: float | None = Field(default=None, gt=0, le=86_400_000)
    """The slowest p95 latency of the agent's replies a suite may have, errors included, in milliseconds."""

    @property
    def limits(self) -> SpendLimits:
        """The cost and latency gates."""
        return SpendLimits(
            max_cost_usd=self.max_cost_usd,
            max_cost_per_case_usd=self.max_cost_per_case_usd,
            max_latency_p95_ms=self.max_latency_p95_ms,
        )

    @property
    def rates_empty(self) -> bool:
        """Whether no pass-rate gate is set."""
        return (
            self.min_pass_rate is None
            and not self.by_metadata
            and not self.by_assertion
            and self.max_failures_per_case is None
            and not self.pass_at_k
            and not self.pass_hat_k
        )

    @property
    def empty(self) -> bool:
        """Whether no gate is set (then every case must pass)."""
        return self.rates_empty and self.limits.empty


AssertionList = Annotated[list[dict[str, JsonValue]], WithJsonSchema(ASSERTION_LIST_SCHEMA)]
RuleList = Annotated[list[dict[str, JsonValue]], WithJsonSchema(RULE_LIST_SCHEMA)]


class EvalFile(_Strict):
    """One eval: suites, the target answering them, how cases are graded, outputs and gates."""

    model_config = ConfigDict(title="assay.yaml", serialize_by_alias=True)

    description: str | None = Field(default=None, max_length=10_000)
    """What the eval is for (shown nowhere else; for readers of the file)."""
    suites: list[SuiteRef] = Field(min_length=1, max_length=100)
    """The suites to run, in order: file paths, or ``{server_suite: ID}``."""
    target: EvalTarget
    """What answers the cases."""
    grader: GraderChoice = GraderChoice(id=DEFAULT_GRADER)
    """The grader of cases that no assertion reaches (default ``string-match``)."""
    assertions: AssertionList | None = Field(default=None, alias="assert")
    """Default assertions of every suite's cases that carry none of their own (docs/assertions.md)."""
    threshold: float | None = Field(default=None, gt=0, le=1)
    """Weighted score the default assertions must reach (default: every one must pass)."""
    rules: RuleList | None = None
    """Assertions picked by a case's metadata (``when``), tried before the defaults."""
    concurrency: int = Field(default=8, ge=1, le=1024)
    """Cases in flight at once."""
    repeats: int = Field(default=1, ge=1, le=MAX_REPEATS)
    """How many times each case is asked (an agent's target, past 1): each case's passes of its repeats, a
    flaky mark when they disagree, pass@k and pass^k; ``--repeats`` replaces it."""
    timeout_s: float | None = Field(default=None, gt=0, le=600)
    """Seconds one call to the target may take (default 30); or the target's own ``timeout``."""
    max_attempts: int | None = Field(default=None, ge=1, le=10)
    """Tries per case, with backoff (default 4); or the target's own ``max_attempts``."""
    allow_invalid_expected: bool = False
    """Run even with cases their grader can never pass (the preflight's finding); otherwise exit 2 (422)."""
    outputs: Outputs = Outputs()
    """Files written."""
    gates: Gates = Gates()
    """When the eval passes."""
    prices: PriceTable = Field(default_factory=dict)
    """US dollars per million input and output tokens, by model (``gpt-4o-mini: {input_per_million: 0.15,
    output_per_million: 0.6}``), for the cost of the agent's and the judge's calls; over the
    ``ASSAY_PRICES`` setting for the models they name. A model without a price has an unknown cost."""
    cache: Literal["off", "record", "replay"] = "off"
    """The reply cache (docs/cli.md#the-reply-cache): ``record`` reuses a cached reply to the same input and
    target and caches the others (errors never); ``replay`` only reuses, a case without one fails
    (``cache_miss``); ``--cache``/``--replay`` replace it. On a server, the evaluation's ``reply_cache``."""
    server: WebUrl | None = None
    """Also store each finished suite run as an evaluation on this Assay server (its key from the
    ``ASSAY_API_KEY`` environment variable, never from this file)."""

    @model_validator(mode="after")
    def _said_once(self) -> EvalFile:
        target_fields: set[str] = self.target.model_fields_set
        for top, own in (("timeout_s", "timeout"), ("max_attempts", "max_attempts")):
            if getattr(self, top) is not None and own in target_fields:
                raise ValueError(f"give {top} or target.{own}, not both")
        if self.threshold is not None and self.assertions is None:
            raise ValueError("threshold needs the default 'assert' list")
        beyond = [gate.k for gate in (*self.gates.pass_at_k, *self.gates.pass_hat_k) if gate.k > self.repeats]
        if beyond:
            raise ValueError(
                f"gates ask for k = {beyond[0]}, past repeats ({self.repeats}): k is at most them"
            )
        failures = self.gates.max_failures_per_case
        if failures is not None and self.repeats == 1:
            raise ValueError("gates.max_failures_per_case needs repeats (each case asked more than once)")
        return self
