"""OverlapGrader: SQuAD token F1 and ROUGE-L over Unicode-aware tokens, against a threshold."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.graders import OverlapGrader
from assay.graders.builtin.overlap import LCS_SIDE, METRICS
from tests.support.inputs import FLAGS, THRESHOLDS, anything, configured, picks, whitespace
from tests.support.scored import assert_scored

ROUGE = {"metric": "rouge_l"}
JUDGED = {"match", "mismatch"}


@pytest.mark.parametrize(
    ("config", "expected", "response", "score", "passed"),
    [
        # token F1 = 2 * shared / (expected tokens + response tokens), as SQuAD counts it
        (None, "Denver Broncos", "The Denver Broncos", 1.0, True),  # the article is dropped
        (None, "Saint Bernadette Soubirous", "Bernadette Soubirous", 4 / 5, True),
        (None, "in the late 1990s", "late 1990s", 4 / 5, True),
        (None, "Paris", "The capital of France is Paris.", 2 / 6, False),
        (None, "Paris", "not Paris", 2 / 3, True),  # a negation is one token among others
        (None, "Charles Darwin", "Darwin, Charles", 1.0, True),  # a bag: order does not count
        (None, "1,000 metres", "1000 metres", 1.0, True),  # punctuation deleted, not a space
        (None, "U.S.", "US", 1.0, True),
        (None, "New York", "New York New York New York", 4 / 8, True),  # each shared once per occurrence
        (None, "Paris France", "Paris—France", 1.0, True),  # an em dash parts words
        (None, "Berlin", "Paris", 0.0, False),
        (None, "-5", "5", 0.0, False),  # a number keeps its sign and point (SQuAD would score these 1)
        (None, "3.5", "35", 0.0, False),
        (None, "−5 °C", "-5 °C", 1.0, True),  # the minus sign is a hyphen-minus
        # any script; Chinese characters and Japanese kana one token each; compatibility forms folded
        (None, "北京", "首都是北京。", 4 / 7, True),
        (None, "東京", "日本の首都は東京です", 4 / 12, False),
        (None, "2024年", "２０２４年", 1.0, True),
        (None, "Москва", "Столица России — Москва.", 2 / 4, True),
        (None, "Ελλάδα", "ελλάδα", 1.0, True),
        (None, "서울", "서울입니다", 4 / 7, True),  # Korean per syllable: particles and endings glue on
        (None, "서울", "부산", 0.0, False),
        # options
        ({"case_sensitive": True}, "Paris", "paris", 0.0, False),
        ({"ignore_articles": False}, "The Beatles", "Beatles", 2 / 3, True),
        ({"ignore_punctuation": False}, "U.S.", "US", 0.0, False),
        ({"ignore_punctuation": False}, "Paris", "Paris.", 0.0, False),
        ({"threshold": 0.9}, "Saint Bernadette Soubirous", "Bernadette Soubirous", 4 / 5, False),
        # ROUGE-L = 2 * longest common subsequence / (expected tokens + response tokens)
        (ROUGE, "Charles Darwin", "Darwin, Charles", 2 / 4, True),
        ({**ROUGE, "threshold": 0.6}, "Charles Darwin", "Darwin, Charles", 2 / 4, False),
        (ROUGE, "the cat sat on the mat", "the cat on the mat sat", 6 / 8, True),
        (ROUGE, "police killed the gunman", "police kill the gunman", 4 / 6, True),
        (
            {**ROUGE, "ignore_articles": False},
            "police killed the gunman",
            "police kill the gunman",
            6 / 8,
            True,
        ),
        (
            {**ROUGE, "ignore_articles": False},
            "police killed the gunman",
            "the gunman kill police",
            4 / 8,
            True,
        ),
        (ROUGE, "北京", "首都是北京。", 4 / 7, True),
    ],
)
def test_real_answers(
    config: dict[str, Any] | None, expected: str, response: str, score: float, passed: bool
) -> None:
    assert_scored(OverlapGrader(config=config).grade(response, expected), passed=passed, score=score)


def test_defaults_and_details() -> None:
    grader = OverlapGrader()
    assert grader.grader_id == "overlap"
    assert grader.config == {
        "metric": "f1",
        "threshold": 0.5,
        "case_sensitive": False,
        "ignore_punctuation": True,
        "ignore_articles": True,
    }
    assert grader.report.value == "score"
    details = grader.grade("The capital of France is Paris.", "Paris")["details"]
    assert details["normalized_actual"] == "capital of france is paris"
    assert details["normalized_expected"] == "paris"
    assert (details["precision"], details["recall"]) == (0.2, 1.0)
    assert (details["common_tokens"], details["expected_tokens"], details["response_tokens"]) == (1, 1, 5)
    assert (details["metric"], details["threshold"], details["truncated"]) == ("f1", 0.5, False)
    assert details["reason"] == (
        "Token F1 0.33 is below the threshold 0.5: 1 of the 1 expected tokens are among the response's 5"
    )


def test_rouge_details_say_order() -> None:
    details = OverlapGrader(config=ROUGE).grade("Darwin Charles", "Charles Darwin")["details"]
    assert (details["precision"], details["recall"], details["common_tokens"]) == (0.5, 0.5, 1)
    assert details["reason"] == (
        "ROUGE-L 0.50 meets the threshold 0.5: "
        "1 of the 2 expected tokens appear in order among the response's 2"
    )


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("The U.S. isn't a 'country'—it's 50 states!", ["us", "isnt", "country", "its", "50", "states"]),
        ("北京是中国的首都。", ["北", "京", "是", "中", "国", "的", "首", "都"]),
        ("東京・大阪", ["東", "京", "大", "阪"]),
        ("ｶﾀｶﾅ ＡＢＣ", ["カ", "タ", "カ", "ナ", "abc"]),
        ("Tokyo(東京)", ["tokyo", "東", "京"]),
        ("서울은 수도", ["서", "울", "은", "수", "도"]),  # Korean syllables too (KorQuAD's character F1)
        ("café naïve «quoted»", ["café", "naïve", "quoted"]),
        ("cafe\u0301", ["café"]),  # a combining accent composed (NFKC), not deleted as a non-letter
        ("garc:\u0327on", ["gar\u00e7on"]),  # composed again once the colon between is deleted
        ("नमस्ते दुनिया।", ["नमस्ते", "दुनिया"]),  # vowel signs are marks, kept; the danda is punctuation
        ("€5 + 3 = 8 🙂", ["€5", "3", "8", "🙂"]),
        ("e-mail, New York-based", ["email", "new", "yorkbased"]),
        ("-5 °C, −5, (-3), 気温は-5度", ["-5", "°c", "-5", "-3", "気", "温", "は", "-5", "度"]),
        ("3.5 or 3,5; 1,000,000 and 1,000.50", ["3.5", "or", "3,5", "1000000", "and", "1000.50"]),
        ("COVID-19, 1990-2000, x-5, - 5", ["covid19", "19902000", "x5", "5"]),
        ("v1.2.3 answer: 42.", ["v1.2.3", "answer", "42"]),
        ("５，０００円", ["5000", "円"]),
        ("Pa\u00adris\ufeff \u200d", ["paris"]),  # soft hyphen, byte-order mark, zero-width joiner
        ("กรุง\u200bเทพ มหานคร", ["กรุง", "เทพ", "มหานคร"]),  # a zero-width space parts words; Thai runs
        ("A an THE tHe", []),
        ("...", []),
    ],
)
def test_tokens(text: str, tokens: list[str]) -> None:
    assert OverlapGrader().tokens(text) == tokens


def test_tokens_keep_punctuation_and_case_when_asked() -> None:
    grader = OverlapGrader(
        config={"case_sensitive": True, "ignore_punctuation": False, "ignore_articles": False}
    )
    assert grader.tokens("The U.S.—isn't 北京。") == ["The", "U.S.—isn't", "北", "京", "。"]
    assert grader.tokens("Pa\u00adris\u200bFrance") == ["Paris", "France"]  # invisible characters still go


def test_a_long_run_of_digits_is_read_once() -> None:
    digits = "1" * 200_000  # a pattern retried from each digit would backtrack 2 * 10^10 times
    assert OverlapGrader().tokens(f"{digits}.x -{digits}.x") == [f"{digits}x", f"-{digits}x"]


@pytest.mark.parametrize("metric", list(METRICS))
@pytest.mark.parametrize(
    ("response", "expected", "status", "reason"),
    [
        ("", "Paris", "invalid_response", "Empty or null response"),
        (None, "Paris", "invalid_response", "Empty or null response"),
        ("\u3000\n", "Paris", "invalid_response", "Empty or null response"),
        ("Paris", "", "invalid_expected", "Expected output is empty: there is nothing to match"),
        ("Paris", None, "invalid_expected", "Expected output is empty: there is nothing to match"),
        (
            "the",
            "the",
            "invalid_expected",
            "Expected output has no words once punctuation and articles are removed",
        ),
        (
            "Paris",
            "?!",
            "invalid_expected",
            "Expected output has no words once punctuation and articles are removed",
        ),
        (
            "",
            "—",
            "invalid_expected",
            "Expected output has no words once punctuation and articles are removed",
        ),
    ],
)
def test_blank_or_wordless_texts(
    metric: str, response: object, expected: object, status: str, reason: str
) -> None:
    grader = OverlapGrader(config={"metric": metric})
    result = grader.grade(response, expected)
    assert (result["passed"], result["score"], result["details"]["match_status"]) == (False, 0.0, status)
    assert result["details"]["reason"] == reason
    assert grader.check_expected(expected) == (reason if status == "invalid_expected" else None)
    assert result["details"]["precision"] is None


def test_wordless_reason_names_only_what_is_removed() -> None:
    for ignore_punctuation in (True, False):
        grader = OverlapGrader(config={"ignore_punctuation": ignore_punctuation, "ignore_articles": False})
        # no visible character is an empty expected output, whatever the options
        assert grader.check_expected("\u200b\ufeff") == "Expected output is empty: there is nothing to match"
    assert OverlapGrader(config={"ignore_articles": False}).check_expected("?!") == (
        "Expected output has no words once punctuation is removed"
    )
    assert OverlapGrader(config={"ignore_punctuation": False}).check_expected("The") == (
        "Expected output has no words once articles are removed"
    )
    assert OverlapGrader(config={"ignore_punctuation": False}).check_expected("?!") is None
    assert OverlapGrader(config={"ignore_articles": False}).check_expected("the") is None


@pytest.mark.parametrize("metric", list(METRICS))
def test_an_answer_of_no_words_is_judged_and_fails(metric: str) -> None:
    result = OverlapGrader(config={"metric": metric, "threshold": 0.01}).grade("... the!", "Paris")
    assert (result["passed"], result["score"], result["details"]["match_status"]) == (False, 0.0, "mismatch")
    assert result["details"]["response_tokens"] == 0
    assert "response's 0" in result["details"]["reason"]


def test_long_texts_rouge_is_searched_in_prefixes_and_is_a_lower_bound() -> None:
    rng = random.Random(7)
    vocabulary = [f"w{n}" for n in range(3_000)]
    words = [rng.choice(vocabulary) for _ in range(200_000)]  # ~1 MB
    answer, expected = " ".join(words), " ".join(words[:150_000])
    f1 = OverlapGrader().grade(answer, expected)
    rouge = OverlapGrader(config=ROUGE).grade(answer, expected)
    assert f1["score"] == pytest.approx(2 * 150_000 / 350_000)  # F1 is never cut
    assert f1["details"]["truncated"] is False
    assert rouge["details"]["truncated"] is True
    assert "lower bound" in rouge["details"]["reason"]
    assert rouge["details"]["common_tokens"] == LCS_SIDE  # uncut, the common sequence is all 150,000
    assert rouge["score"] == pytest.approx(2 * LCS_SIDE / 350_000)  # counted against the full lengths
    assert rouge["score"] <= f1["score"]


def test_rouge_is_exact_while_the_other_side_is_short() -> None:
    answer = "filler " * 50_000 + "paris"
    result = OverlapGrader(config={**ROUGE, "threshold": 0.01}).grade(answer, "Paris")
    assert result["details"]["truncated"] is False  # 1 x 50,001 token pairs: no cut needed
    assert result["details"]["common_tokens"] == 1


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ({"metric": "bleu"}, ValueError),
        ({"metric": "F1"}, ValueError),
        ({"threshold": 0}, ValueError),
        ({"threshold": 2}, ValueError),
        ({"threshold": "high"}, TypeError),
        ({"ignore_articles": "yes"}, TypeError),
        ({"ignore_punctuation": None}, TypeError),
        ({"case_sensitive": 0}, TypeError),
        ({"normalize_whitespace": True}, ValueError),  # not an option here: tokens never see whitespace
        (["f1"], TypeError),
    ],
)
def test_config_errors(config: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        OverlapGrader(config=config)  # type: ignore[arg-type]


# ---- properties -----------------------------------------------------------------------------------------

graders = configured(
    lambda config: OverlapGrader(config=config),
    {
        "metric": list(METRICS),
        "threshold": THRESHOLDS,
        "case_sensitive": FLAGS,
        "ignore_punctuation": FLAGS,
        "ignore_articles": FLAGS,
    },
)
metrics = st.sampled_from(list(METRICS))
# Graders the properties share, built once: constructing one validates its config (CI runs 1,000 examples).
F1, ROUGE_L = OverlapGrader(), OverlapGrader(config=ROUGE)
BY_METRIC = {metric: OverlapGrader(config={"metric": metric}) for metric in METRICS}
EXACT_BY_METRIC = {metric: OverlapGrader(config={"metric": metric, "threshold": 1.0}) for metric in METRICS}
LENIENT_BY_METRIC = {
    metric: OverlapGrader(config={"metric": metric, "threshold": 0.01}) for metric in METRICS
}
WORDS = ["paris", "france", "capital", "of", "is", "naïve", "москва", "北", "京", "서"]
sentences = picks([*WORDS, "1889", "-5", "3.5", "1,000"], min_size=1, max_size=12)


@given(graders, anything, anything)
def test_never_raises_score_is_the_f_measure_and_deterministic(
    grader: OverlapGrader, response: Any, expected: Any
) -> None:
    result = grader.grade(response, expected)
    status = result["details"]["match_status"]
    assert 0.0 <= result["score"] <= 1.0
    assert result["passed"] is (status == "match")
    if status in ("match", "mismatch"):
        assert (result["score"] >= grader.threshold) is result["passed"]
        details = result["details"]
        assert 0.0 <= details["precision"] <= 1.0
        assert 0.0 <= details["recall"] <= 1.0
    else:
        assert result["score"] == 0.0
    assert grader.grade(response, expected) == result


@given(metrics, st.text())
def test_identical_texts_score_one_and_pass(metric: str, text: str) -> None:
    grader = EXACT_BY_METRIC[metric]
    result = grader.grade(text, text)
    if grader.check_expected(text) is None:
        assert (result["score"], result["passed"]) == (1.0, True)
    else:
        assert result["details"]["match_status"] == "invalid_expected"


@given(metrics, st.text(), st.text())
def test_both_measures_are_symmetric(metric: str, first: str, second: str) -> None:
    grader = BY_METRIC[metric]
    forward, backward = grader.grade(first, second), grader.grade(second, first)
    judged = {forward["details"]["match_status"], backward["details"]["match_status"]} <= JUDGED
    if judged:
        assert forward["score"] == backward["score"]
        assert forward["details"]["precision"] == backward["details"]["recall"]


@given(metrics, sentences, sentences, whitespace)
def test_case_punctuation_articles_and_spacing_do_not_count_by_default(
    metric: str, response: list[str], expected: list[str], space: str
) -> None:
    grader = BY_METRIC[metric]
    plain = grader.grade(" ".join(response), " ".join(expected))
    noisy_words = [f"The {token.upper()}," if n % 2 else f"“{token}”." for n, token in enumerate(response)]
    noisy = grader.grade(space + f" {space} ".join(noisy_words) + "!", " ".join(expected))
    assert noisy["score"] == plain["score"]
    assert noisy["passed"] is plain["passed"]


@given(sentences, sentences, st.binary(min_size=12, max_size=12))
def test_f1_ignores_order_and_rouge_never_exceeds_it(
    response: list[str], expected: list[str], order: bytes
) -> None:
    shuffled = [word for _, word in sorted(zip(order, response, strict=False))]  # a byte per word sorts them
    f1 = F1.grade(" ".join(response), " ".join(expected))["score"]
    assert F1.grade(" ".join(shuffled), " ".join(expected))["score"] == f1
    assert ROUGE_L.grade(" ".join(response), " ".join(expected))["score"] <= f1


@given(
    metrics,
    picks(["paris", "france", "北"], min_size=1, max_size=24),
    picks(["berlin", "germany", "京"], min_size=1, max_size=24),
)
def test_no_shared_token_scores_zero_and_never_passes(
    metric: str, response: list[str], expected: list[str]
) -> None:
    result = LENIENT_BY_METRIC[metric].grade(" ".join(response), " ".join(expected))
    assert (result["score"], result["passed"]) == (0.0, False)


@given(anything)
def test_normalisation_is_idempotent(value: Any) -> None:
    once = F1.grade(value, "x")["details"]["normalized_actual"]
    assert F1.grade(once, "x")["details"]["normalized_actual"] == once


@given(graders, st.text(alphabet="09-−.,;' aB北서\u200b\u00ad—"))
def test_tokens_are_stable(grader: OverlapGrader, text: str) -> None:
    once = grader.tokens(text)
    assert grader.tokens(" ".join(once)) == once


@given(st.integers(min_value=0), st.integers(min_value=0))
def test_sign_and_point_of_a_number_count(whole: int, fraction: int) -> None:
    assert F1.tokens(f"-{whole}") == [f"-{whole}"]
    assert F1.tokens(f"{whole}.{fraction}") == [f"{whole}.{fraction}"]
    assert F1.grade(f"{whole}{fraction}", f"{whole}.{fraction}")["passed"] is False


@given(st.text(alphabet="北京是中国的首都東京はです서울", min_size=1))
def test_each_ideograph_kana_or_hangul_syllable_is_one_token(text: str) -> None:
    assert F1.tokens(text) == list(text)
