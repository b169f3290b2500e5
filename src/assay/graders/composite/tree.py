"""Composite graders, once for all graders: the tree, its checks, its version and its verdict's shape.

A composite grades an answer by asking child graders (any grader in :mod:`assay.graders.contract.catalog`,
other composites included) and combining their verdicts in three-valued logic. This module holds what every
composite shares (one child's spec, limits and checks: :mod:`assay.graders.composite.children`);
:mod:`assay.graders.composite.combinators` holds the five combinations (`not`, `all`, `any`,
`at-least`, `weighted`).

The semantics are in docs/composition.md: the rules every composite keeps (a blank answer is
``invalid_response`` before any child runs; a child's ``invalid_expected`` makes it ``invalid_expected``,
a broken child ``invalid_response``; the tree is bounded by ``MAX_DEPTH``, ``MAX_NODES`` and ``MAX_CALLING``),
the ``children`` entries of its details and ``decided_by``, and its version
``"<class version>+<digest of the children's ids and versions>"``.

A composite holding a grader that calls out (a model judge, at any depth) is itself a calling grader
(:class:`~assay.graders.contract.calls.CallingGrader`): it grades the children that need no call while it
plans, plans the calls of the others (each to its own endpoint), and has each reply read by the child that
planned it; its rules then combine the verdicts as ever. When the children that needed no call already decide
(``all`` with one failed), no call is made. Plain ``grade()`` has every call unavailable: such a child is
unjudged, never a pass.
"""

from __future__ import annotations

import hashlib
import json
from abc import abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from assay.graders.composite.children import (
    INVALID_EXPECTED,
    INVALID_RESPONSE,
    MAX_CALLING,
    MAX_DEPTH,
    MAX_NODES,
    child_entry,
    child_problems,
    details_template,
    located,
    placed,
    read_verdict,
    refusal_of_own_expected,
    tree_verdict,
)
from assay.graders.contract import catalog
from assay.graders.contract.base import GraderInterface, why_unavailable
from assay.graders.contract.calls import (
    CallingGrader,
    CallPlan,
    CallReply,
    CaseContext,
    Endpoint,
    OutboundCall,
    calls_out,
)
from assay.graders.contract.config_check import ConfigProblem, ProblemKind, fill_defaults, schema_problems
from assay.graders.contract.verdict import EMPTY_RESPONSE_REASON, GradeResult
from assay.graders.reading.text import is_blank, read_text

__all__ = ["CompositeGrader"]

_REFUSED = "Expected output refused by "

Decision = tuple[bool, dict[str, Any], str, float]
"""What a combination decides: (passed, details template, reason, score); see ``CompositeGrader._decide``."""


class _TreeVersion:
    """``version`` of a composite: the class's own on the class, the whole tree's on an instance."""

    __slots__ = ("_own",)

    def __init__(self, own: str) -> None:
        self._own = own

    def __get__(self, instance: object, owner: type[Any] | None = None) -> str:
        if instance is None:
            return self._own
        tree: str | None = getattr(instance, "_tree_version", None)
        return tree if tree is not None else self._own


class _TreeCpuBound:
    """``cpu_bound`` of a composite: false on the class; on an instance, whether any grader in its tree is
    (a cheap combination of an expensive child is as expensive as the child)."""

    __slots__ = ()

    def __get__(self, instance: object, owner: type[Any] | None = None) -> bool:
        return bool(getattr(instance, "_cpu_bound", False)) if instance is not None else False


class CompositeGrader(CallingGrader):
    """A grader whose verdict combines child graders' verdicts; subclasses say how (``_decide``).

    A calling grader only when a descendant calls out (:attr:`makes_calls`)."""

    version = _TreeVersion("1.2.0")
    fresh_results: ClassVar[bool] = True
    cpu_bound = _TreeCpuBound()
    _spec_key: ClassVar[str]
    """The config key holding the child spec (``grader``) or the list of them (``graders``)."""

    __slots__ = (
        "_calling",
        "_calls",
        "_checks",
        "_children",
        "_cpu_bound",
        "_endpoints",
        "_fresh_results",
        "_ids",
        "_is_composite",
        "_labels",
        "_nested_refusal",
        "_own_expected",
        "_paths",
        "_refused_at",
        "_refused_by",
        "_tree_version",
    )

    def __init__(self, grader_id: str | None = None, config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        item_schema = self._item_schema()
        specs: list[dict[str, Any]] = []
        children: list[GraderInterface] = []
        paths: list[str] = []
        for path, raw in self._child_specs(self._config):
            spec = fill_defaults(item_schema, raw)
            child_class = catalog.lookup(spec["grader_id"])
            if child_class is None:  # config_problems found it: only a catalog changed meanwhile gets here
                raise ValueError(f"'{path}.grader_id': no grader has the id '{spec['grader_id']}'")
            child = child_class(spec["grader_id"], spec["config"])
            spec["config"] = child.config  # stored filled in: the spec says exactly what graded
            specs.append(spec)
            children.append(child)
            paths.append(path)
        single = "items" not in self.config_schema["properties"][self._spec_key]
        self._config = {**self._config, self._spec_key: specs[0] if single else specs}
        self._children: tuple[GraderInterface, ...] = tuple(children)
        self._cpu_bound: bool = any(child.cpu_bound for child in children)
        self._ids: tuple[str, ...] = tuple(child.grader_id for child in children)
        self._paths: tuple[str, ...] = tuple(paths)
        self._labels: tuple[str, ...] = tuple(f"{p} ({i})" for p, i in zip(paths, self._ids, strict=True))
        self._own_expected: tuple[str | None, ...] = tuple(spec["expected_output"] for spec in specs)
        self._is_composite: tuple[bool, ...] = tuple(isinstance(c, CompositeGrader) for c in children)
        self._fresh_results: tuple[bool, ...] = tuple(type(child).fresh_results for child in children)
        # (id, bound grade, own expected or None, trusted: a built-in's fresh result): what grade() loops
        # over, nothing else looked up per call; and (bound preflight, own expected) for a blank answer's
        # check of the expected outputs first (docs/decisions.md#order-of-verdicts).
        self._calls: tuple[tuple[str, Any, str | None, bool], ...] = tuple(
            zip(
                self._ids,
                [child.grade for child in children],
                self._own_expected,
                [
                    fresh and catalog.is_builtin(type(child))
                    for fresh, child in zip(self._fresh_results, children, strict=True)
                ],
                strict=True,
            )
        )
        self._checks: tuple[tuple[Any, str | None], ...] = tuple(
            zip([child.check_expected for child in children], self._own_expected, strict=True)
        )
        self._refused_at = self._decided_by(INVALID_EXPECTED)
        # A refusal's reason but for the child's words: a nested composite's reason already starts with
        # _REFUSED and its own path, which is put under this child's (see _refusal).
        self._refused_by: tuple[str, ...] = tuple(f"{_REFUSED}{label}: " for label in self._labels)
        self._nested_refusal: tuple[str | None, ...] = tuple(
            f"{_REFUSED}{path}.config." if composite else None
            for path, composite in zip(self._paths, self._is_composite, strict=True)
        )
        self._calling: frozenset[int] = frozenset(
            index for index, child in enumerate(children) if calls_out(child)
        )
        self._endpoints: tuple[Endpoint, ...] = tuple(
            placed(endpoint, f"{paths[index]}.config")
            for index, child in enumerate(children)
            if calls_out(child)
            for endpoint in child.endpoints
        )
        pairs = [[child.grader_id, str(child.version)] for child in children]
        digest = hashlib.sha256(json.dumps(pairs, ensure_ascii=True).encode()).hexdigest()[:12]
        self._tree_version: str = f"{type(self).version}+{digest}"

    def _decided_by(self, status: str) -> tuple[dict[str, Any], ...]:
        """Per child, the details template of a verdict with ``status`` that child decided (see _decide)."""
        return tuple(details_template(status, path) for path in self._paths)

    @staticmethod
    def _undecided(status: str) -> dict[str, Any]:
        """The details template of a verdict with ``status`` no single child decided."""
        return details_template(status, None)

    # --- the tree, as configured ---------------------------------------------------------------------------

    @property
    def children(self) -> tuple[GraderInterface, ...]:
        """The child graders, in config order."""
        return self._children

    @property
    def makes_calls(self) -> bool:
        """Whether a grader that calls out is among the descendants."""
        return bool(self._calling)

    @property
    def endpoints(self) -> tuple[Endpoint, ...]:
        """Every descendant's endpoint, its fields named by their place in the tree
        (``graders[1].config.base_url``)."""
        return self._endpoints

    def unavailable_reason(self) -> str | None:
        """The first child that cannot grade on this machine, by its path, and why."""
        for label, child in zip(self._labels, self._children, strict=True):
            reason = why_unavailable(child)
            if reason is not None:
                return f"{label}: {reason}"
        return None

    @classmethod
    def _item_schema(cls) -> dict[str, Any]:
        entry: dict[str, Any] = cls.config_schema["properties"][cls._spec_key]
        return entry.get("items", entry)  # type: ignore[no-any-return]

    @classmethod
    def _child_specs(cls, config: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
        """(path, raw spec) of each child; tolerant of any value, as the caps are measured before checks."""
        default = cls.config_schema["properties"][cls._spec_key]["default"]
        raw = config.get(cls._spec_key, default)
        if isinstance(raw, list):
            for index, spec in enumerate(raw[:MAX_NODES]):
                yield f"{cls._spec_key}[{index}]", spec
        else:
            yield cls._spec_key, raw

    @classmethod
    def _own_problems(cls, config: dict[str, Any]) -> list[ConfigProblem]:
        """Rules of this combination a schema cannot say (``k`` at most the number of children...)."""
        return []

    @classmethod
    def semantic_problems(cls, config: dict[str, Any]) -> list[ConfigProblem]:
        """The tree's caps, then every problem in it, each with its path (``graders[1].config.aliases``)."""
        try:
            caps = cls._cap_problems(config)
            return caps or cls._problems_below(config, "")
        except Exception as exc:  # never raises; a rule failing on odd input is a bad config
            return [
                ConfigProblem("", f"config could not be checked ({type(exc).__name__})", ProblemKind.VALUE)
            ]

    @classmethod
    def _cap_problems(cls, config: Mapping[str, Any]) -> list[ConfigProblem]:
        """Depth and size of the whole tree, measured on the raw config and stopping at the first excess."""
        nodes, calling = 1, 0
        stack: list[tuple[type[CompositeGrader], Mapping[str, Any], int]] = [(cls, config, 1)]
        while stack:
            composite, node_config, depth = stack.pop()
            for _, spec in composite._child_specs(node_config):
                nodes += 1
                if nodes > MAX_NODES:
                    message = f"the composition has more than {MAX_NODES} graders (composites and leaves)"
                    return [ConfigProblem("", message, ProblemKind.VALUE)]
                child_class = catalog.lookup(spec.get("grader_id")) if isinstance(spec, dict) else None
                if child_class is None:
                    continue
                if not issubclass(child_class, CompositeGrader):
                    calling += issubclass(child_class, CallingGrader)
                    if calling > MAX_CALLING:
                        message = (
                            f"the composition holds more than {MAX_CALLING} graders that call out (model "
                            f"judges): each answer would cost more than {MAX_CALLING} calls"
                        )
                        return [ConfigProblem("", message, ProblemKind.VALUE)]
                    continue
                if depth + 1 > MAX_DEPTH:
                    message = f"the composition nests composite graders more than {MAX_DEPTH} levels deep"
                    return [ConfigProblem("", message, ProblemKind.VALUE)]
                child_config = spec.get("config", {})
                if isinstance(child_config, Mapping):
                    stack.append((child_class, child_config, depth + 1))
        return []

    @classmethod
    def _problems_at(cls, config: object, prefix: str) -> list[ConfigProblem]:
        """Every problem of this composite's ``config`` found at ``prefix`` in a tree (caps excepted)."""
        problems = [located(problem, prefix) for problem in schema_problems(cls.config_schema, config)]
        if problems or not isinstance(config, dict):
            return problems
        return cls._problems_below(config, prefix)

    @classmethod
    def _problems_below(cls, config: dict[str, Any], prefix: str) -> list[ConfigProblem]:
        problems = [located(problem, prefix) for problem in cls._own_problems(config)]
        for path, spec in cls._child_specs(config):
            at = f"{prefix}.{path}" if prefix else path
            grader_id = spec["grader_id"]
            child_class = catalog.lookup(grader_id)
            if child_class is None:
                known = ", ".join(catalog.known_ids())
                message = f"no grader has the id '{grader_id}' (known ids: {known})"
                problems.append(
                    ConfigProblem(f"{at}.grader_id", f"'{at}.grader_id': {message}", ProblemKind.VALUE)
                )
                continue
            child_config = spec.get("config", {})
            if issubclass(child_class, CompositeGrader):
                found = child_class._problems_at(child_config, f"{at}.config")
            else:
                found = [located(p, f"{at}.config") for p in child_problems(child_class, child_config)]
            problems.extend(found)
            expected = spec.get("expected_output")
            if not found and expected is not None:
                refusal = refusal_of_own_expected(child_class, grader_id, child_config, expected)
                if refusal is not None:
                    path = f"{at}.expected_output"
                    problems.append(ConfigProblem(path, f"'{path}' is refused: {refusal}", ProblemKind.VALUE))
        return problems

    # --- preflight -----------------------------------------------------------------------------------------

    def _first_refusal(self, expected_output: Any) -> tuple[int, str] | None:
        """(index, reason) of the first child refusing the expected output it would get, else ``None``."""
        for index, (check, own) in enumerate(self._checks):
            try:
                reason = check(expected_output if own is None else own)
            except Exception:  # a broken preflight says nothing; grading still judges every case
                reason = None
            if isinstance(reason, str) and reason:
                return index, self._refusal(index, reason)
        return None

    def _refusal(self, index: int, reason: Any) -> str:
        """The composite's reason for a child's ``invalid_expected``: its place in the tree, then why."""
        nested = self._nested_refusal[index]
        if nested is not None and isinstance(reason, str) and reason.startswith(_REFUSED):
            return reason.replace(_REFUSED, nested, 1)  # the first occurrence is the start
        return f"{self._refused_by[index]}{reason}"

    def check_expected(self, expected_output: Any) -> str | None:
        """The first child's preflight reason (with its place in the tree) for the expected value it gets."""
        refusal = self._first_refusal(expected_output)
        return refusal[1] if refusal is not None else None

    # --- grading -------------------------------------------------------------------------------------------

    @abstractmethod
    def _decide(self, statuses: list[str], children: list[dict[str, Any]]) -> Decision:
        """(passed, details template, reason, score) once no child refused the expected output.

        ``children`` are the entries of the details tree (each child's result: ``score``, ``details``...). The
        template, built once with the grader (``_decided_by``, ``_undecided``), holds the verdict's status
        and deciding child: a call copies it and fills in the rest, rather than building every key anew.
        ``passed`` is ``status == "match"``.
        """

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade with every child, then combine; the details hold each child's verdict. Never raises."""
        try:
            text = agent_response if type(agent_response) is str else read_text(agent_response)
            if is_blank(text):
                return self._blank(agent_response, expected_output)
            return self._combine(agent_response, expected_output, None)
        except Exception as exc:
            return self._broken(agent_response, expected_output, exc)

    def _combine(self, agent_response: Any, expected_output: Any, results: list[Any] | None) -> GradeResult:
        """The verdict from every child's: graded here (``results`` ``None``), else ``results`` in config
        order (the calling path's). Raises on a malformed one."""
        # One plain loop: calls, statuses and the details tree in a pass (a comprehension costs a call, and
        # grading here rather than into a list first spares a list per node).
        statuses: list[str] = []
        children: list[dict[str, Any]] = []
        for grader_id, grade, own, trusted in self._calls:
            if results is None:
                result = grade(agent_response, expected_output if own is None else own)
            else:
                result = results[len(statuses)]
            details = result["details"]
            status = details["match_status"]
            # A built-in child's fresh result goes in as it is: its status is a known kind and it has a
            # reason (contract tests), so child_entry's checks, which would cost a third of a node, are
            # made for plugins only.
            if trusted:
                result["grader_id"] = grader_id
                children.append(result)
            else:
                status, entry = child_entry(grader_id, result, self._fresh_results[len(children)])
                children.append(entry)
            statuses.append(status)
        if INVALID_EXPECTED in statuses:
            index = statuses.index(INVALID_EXPECTED)
            passed, template = False, self._refused_at[index]
            reason, score = self._refusal(index, children[index]["details"]["reason"]), 0.0
        else:
            passed, template, reason, score = self._decide(statuses, children)
        # Built here rather than through Verdict(...).result(), which costs several times a node's
        # budget; same keys (a test keeps them in step), plus the tree.
        details = template.copy()
        details["reason"] = reason
        details["expected_original"] = expected_output
        details["actual_original"] = agent_response
        details["children"] = children
        return {"passed": passed, "score": score, "details": details}

    # --- grading with calls --------------------------------------------------------------------------------

    def _settled_by(self, statuses: Sequence[str]) -> bool:
        """Whether these verdicts of some children decide the composite whatever the others say (the calls
        of the others then need not be made). No by default; ``all`` and ``any`` say when."""
        return False

    def plan_calls(
        self, agent_response: Any, expected_output: Any, case: CaseContext
    ) -> CallPlan | GradeResult:
        """Grades the children that need no call and plans the others' calls; the verdict at once when none is
        left to make (a blank answer, the children graded already deciding)."""
        try:
            text = agent_response if type(agent_response) is str else read_text(agent_response)
            if is_blank(text):
                return self._blank(agent_response, expected_output)
            results: list[Any] = []
            planned: list[tuple[int, CallPlan]] = []
            calls: list[OutboundCall] = []
            for index, (_, grade, own, _) in enumerate(self._calls):
                expected = expected_output if own is None else own
                if index not in self._calling:
                    results.append(grade(agent_response, expected))
                    continue
                child = self._children[index]
                assert isinstance(child, CallingGrader)  # calls_out said so
                plan = child.plan_calls(agent_response, expected, case)
                if isinstance(plan, CallPlan):
                    planned.append((index, plan))
                    calls.extend(plan.calls)
                    results.append(None)
                else:
                    results.append(plan)
            if planned:
                known = [r["details"]["match_status"] for r in results if r is not None]
                if not (INVALID_EXPECTED in known or self._settled_by(known)):
                    return CallPlan(calls=tuple(calls), state=(results, planned))
                for index, _ in planned:
                    results[index] = self._not_asked(index, agent_response, expected_output)
            return self._combine(agent_response, expected_output, results)
        except Exception as exc:
            return self._broken(agent_response, expected_output, exc)

    def read_replies(
        self,
        agent_response: Any,
        expected_output: Any,
        case: CaseContext,
        plan: CallPlan,
        replies: Sequence[CallReply],
    ) -> GradeResult:
        """Each planned child reads the replies to its own calls; then the verdicts combine. A reply missing
        is read as a call not made (the child is unjudged)."""
        try:
            results, planned = plan.state
            results = list(results)
            at = 0
            for index, child_plan in planned:
                count = len(child_plan.calls)
                own = list(replies[at : at + count])
                own += [CallReply.unavailable()] * (count - len(own))
                at += count
                child = self._children[index]
                assert isinstance(child, CallingGrader)  # it planned calls
                expected = self._own_expected[index]
                results[index] = child.read_replies(
                    agent_response, expected_output if expected is None else expected, case, child_plan, own
                )
            return self._combine(agent_response, expected_output, results)
        except Exception as exc:
            return self._broken(agent_response, expected_output, exc)

    def _not_asked(self, index: int, agent_response: Any, expected_output: Any) -> GradeResult:
        """The verdict of calling child ``index`` whose calls were not made: unjudged, saying why (never a
        pass), with the expected output it would have been given."""
        own = self._own_expected[index]
        return {
            "passed": False,
            "score": 0.0,
            "details": {
                "match_status": INVALID_RESPONSE,
                "reason": "Not asked: the other graders' verdicts already decided",
                "expected_original": expected_output if own is None else own,
                "actual_original": agent_response,
                "normalized_expected": None,
                "normalized_actual": None,
                "skipped": True,
            },
        }

    def _blank(self, agent_response: Any, expected_output: Any) -> GradeResult:
        refusal = self._first_refusal(expected_output)  # a refused expected output is reported first
        if refusal is not None:
            index, reason = refusal
            return tree_verdict(
                INVALID_EXPECTED, reason, 0.0, agent_response, expected_output, index, self._paths, []
            )
        return tree_verdict(
            INVALID_RESPONSE,
            EMPTY_RESPONSE_REASON,
            0.0,
            agent_response,
            expected_output,
            None,
            self._paths,
            [],
        )

    def _broken(self, agent_response: Any, expected_output: Any, error: Exception) -> GradeResult:
        """A child raised or gave a malformed verdict: nothing was judged, so the answer cannot pass."""
        reason = f"The children's verdicts could not be combined ({type(error).__name__})"
        for index, (_, grade, own, _) in enumerate(self._calls):
            try:
                read_verdict(grade(agent_response, expected_output if own is None else own))
            except Exception as exc:
                reason = (
                    f"{self._labels[index]} failed ({type(exc).__name__}), so the response was not judged"
                )
                break
        return tree_verdict(
            INVALID_RESPONSE, reason, 0.0, agent_response, expected_output, None, self._paths, []
        )
