"""Issue 23's extraction classes, one sentence each beside the corpus: what must never pass, what must."""

from __future__ import annotations

import functools

import pytest

from assay.graders import ExtractGrader

LANGUAGES = ("english", "french", "german", "spanish", "italian", "portuguese", "russian")


@functools.cache
def grader(kind: str, language: str = "english") -> ExtractGrader:
    if kind == "tf":
        return ExtractGrader("extract", dict(ExtractGrader.presets[language].config))
    languages = list(dict.fromkeys((language, "english")))
    return ExtractGrader("extract", {"grader": {"grader_id": kind}, "languages": languages})


NEVER = [
    # a correction after the answer
    ("numeric", "english", "Answer: 42. Hmm, let me recheck... so the right total is 48.", "42"),
    ("numeric", "english", "Answer: 42\n\nOn reflection, the total should be 44.", "42"),
    ("choice", "english", "The answer is A. Wait, no, it's C.", "A"),
    ("choice", "english", "Final answer: B — no wait, D.", "B"),
    ("string-match", "english", "The answer is Tokyo. No, wait — Kyoto.", "Tokyo"),
    ("tf", "english", "Answer: yes. Just kidding, no.", "yes"),
    ("tf", "french", "Réponse : oui. En fait, non.", "oui"),
    ("tf", "german", "Antwort: ja. Korrektur: nein.", "ja"),
    ("tf", "italian", "Risposta: sì. Anzi, no.", "sì"),
    ("tf", "russian", "Ответ: да. Вернее, нет.", "да"),
    # two answers in one span
    ("choice", "english", "Answer: A, B", "A"),
    ("numeric", "english", "Answer: 42, 43", "42"),
    ("numeric", "english", "Answer: 42; some sources say 43.", "42"),
    ("string-match", "english", "Answer: Paris, Lyon", "Paris"),
    ("choice", "english", "Answer: B. Though honestly A is defensible too.", "B"),
    # a bound, an approximation, a negation or a question
    ("numeric", "english", "Answer: more than 40", "40"),
    ("numeric", "english", "Answer: fewer than 40 people", "40"),
    ("numeric", "french", "Réponse : environ 42", "42"),
    ("numeric", "russian", "Ответ: примерно 42", "42"),
    # an answer word that is not the reply's own
    ("tf", "english", "> agent: Yes.", "true"),
    ("tf", "english", "[12:01:07] agent: Yes.\n[12:01:09] user: ok", "true"),
    ("tf", "english", "Is it false? No.", "false"),
    ("tf", "english", "Is that incorrect? Yes.", "true"),
    ("tf", "english", "It is true that 9 is odd. However, 9 is not prime.", "true"),
    ("tf", "english", 'The user wrote: "Answer: yes". I cannot verify it.', "true"),
    ("tf", "english", "Question: Is water wet?\nAnswer: yes\n\nQuestion: Is fire cold?\n", "true"),
    # sarcasm and trailing negation
    ("tf", "english", "Yes! Not.", "true"),
    ("tf", "english", "Yeah, right. Like that would ever happen.", "true"),
    ("tf", "german", "Ja, klar. Als ob.", "true"),
    # the read window
    ("tf", "english", "Answer: no\n" + "Some reasoning here. " * 500 + "\nAnswer: yes", "true"),
    ("tf", "english", "<answer>no</answer>\n" + "text " * 2000 + "\n<answer>yes</answer>", "true"),
]

ALWAYS = [
    ("tf", "french", "Bien sûr que oui !", "true"),
    ("tf", "spanish", "Claro que sí.", "true"),
    ("tf", "german", "Natürlich nicht.", "false"),
    ("tf", "spanish", "Por supuesto que no.", "false"),
    ("tf", "french", "Absolument pas.", "false"),
    ("numeric", "english", "The answer is 24, not 42.", "24"),
    ("tf", "english", "\u2066Answer: yes\u2069", "true"),
    ("tf", "english", "\u2067**Answer:** no\u2069", "false"),
    (
        "tf",
        "english",
        "Consider the kind of insulation: mineral wool is less likely to sag and likely to be wrong less.\n\n"
        + "The survey measured heat loss in 412 homes over two winters. " * 40
        + "\n\nAnswer: yes",
        "true",
    ),
    ("tf", "english", "Answer: no. However, this may change next year.", "false"),
    ("tf", "english", "No. Not at all.", "false"),
]


@pytest.mark.parametrize(("kind", "language", "reply", "expected"), NEVER)
def test_a_reply_that_does_not_say_one_answer_never_passes(
    kind: str, language: str, reply: str, expected: str
) -> None:
    result = grader(kind, language).grade(reply, expected)
    assert result["passed"] is False, result["details"]["reason"]


@pytest.mark.parametrize(("kind", "language", "reply", "expected"), ALWAYS)
def test_a_clear_answer_is_read(kind: str, language: str, reply: str, expected: str) -> None:
    result = grader(kind, language).grade(reply, expected)
    assert result["passed"] is True, result["details"]["reason"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_multilingual_preset_accepts_every_language_expected_value(language: str) -> None:
    multilingual = ExtractGrader("extract", dict(ExtractGrader.presets["multilingual"].config))
    words = {"english": "yes", "french": "oui", "german": "ja", "spanish": "sí", "italian": "sì"}
    words |= {"portuguese": "sim", "russian": "да"}
    assert multilingual.check_expected(words[language]) is None
    assert multilingual.grade(f"Answer: {words[language]}", "true")["passed"] is True
