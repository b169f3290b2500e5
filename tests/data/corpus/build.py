"""Build the trust corpus (issue 23): realistic agent replies in seven languages, each labelled.

Run ``python tests/data/corpus/build.py`` to rewrite ``replies.jsonl`` (deterministic). Every row:
``{"id", "language", "class", "label", "grader", "expected", "reply"}`` where ``label`` is ``correct`` (a
clear reply stating the expected value: must pass), ``wrong`` (a clear reply stating another value: must be
read and fail) or ``unclear`` (a reply that does not say one value plainly: must never pass). ``grader``
names how the row is graded (tests/support/trust_corpus.py): ``tf`` (extract with the language's preset),
``tf-multi``
(extract's multilingual preset), ``numeric`` and ``choice`` (extract wrapping them), ``numeric-bare`` and
``choice-bare`` (the graders alone).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from languages import LANGUAGES

OUT = Path(__file__).parent / "replies.jsonl"
Row = dict[str, str]


def _long(lang: dict[str, object], size: int) -> str:
    """Reasoning prose of about ``size`` characters, cycling the language's paragraphs."""
    paragraphs: list[str] = list(lang["filler"])  # type: ignore[call-overload]
    parts, total, index = [], 0, 0
    while total < size:
        text = paragraphs[index % len(paragraphs)]
        parts.append(f"### Step {index + 1}\n\n{text}")
        total += len(text) + 14
        index += 1
    return "\n\n".join(parts)


def _row(language: str, cls: str, label: str, grader: str, expected: str, reply: str) -> Row:
    return {
        "language": language,
        "class": cls,
        "label": label,
        "grader": grader,
        "expected": expected,
        "reply": reply,
    }


def _booleans(language: str, lang: dict[str, object]) -> Iterator[Row]:
    yes_word, no_word = str(lang["yes_word"]), str(lang["no_word"])
    labels: list[str] = lang["labels"]  # type: ignore[assignment]
    for reply in (*lang["yes"], *lang["emphatic_yes"]):  # type: ignore[misc]
        cls = "emphatic" if reply in lang["emphatic_yes"] else "plain"  # type: ignore[operator]
        yield _row(language, cls, "correct", "tf", "true", reply)
        yield _row(language, cls, "wrong", "tf", "false", reply)
    for reply in (*lang["no"], *lang["emphatic_no"]):  # type: ignore[misc]
        cls = "emphatic" if reply in lang["emphatic_no"] else "plain"  # type: ignore[operator]
        yield _row(language, cls, "correct", "tf", "false", reply)
        yield _row(language, cls, "wrong", "tf", "true", reply)
    for label in labels:
        for word, value, other in ((yes_word, "true", "false"), (no_word, "false", "true")):
            yield _row(language, "labelled", "correct", "tf", value, f"{label} {word}")
            yield _row(language, "labelled", "wrong", "tf", other, f"{label} {word}.")
    for word, value in ((yes_word, "true"), (no_word, "false")):
        yield _row(language, "tagged", "correct", "tf", value, f"<answer>{word}</answer>")
        yield _row(language, "json", "correct", "tf", value, f'```json\n{{"answer": "{word}"}}\n```')
        yield _row(language, "bidi", "correct", "tf", value, f"\u2066{labels[0]} {word}\u2069")
        yield _row(language, "multilingual", "correct", "tf-multi", word, f"{labels[0]} {word}")
    huge = _long(lang, 48_000)
    yield _row(
        language, "long", "correct", "tf", "false", f"{huge}\n\n{lang['closing']}\n\n{labels[-1]} {no_word}"
    )
    for size in (5_500, 9_000, 16_000):
        body = _long(lang, size)
        closing = str(lang["closing"])
        yield _row(
            language, "long", "correct", "tf", "true", f"{body}\n\n{closing}\n\n{labels[0]} {yes_word}"
        )
        yield _row(
            language, "long", "wrong", "tf", "true", f"{body}\n\n{closing}\n\n**{labels[0]}** {no_word}"
        )
        window = f"{labels[0]} {no_word}\n\n{body}\n\n{closing}\n\n{labels[0]} {yes_word}"
        yield _row(language, "read_window", "unclear", "tf", "true", window)
    for take_back in lang["take_back"]:  # type: ignore[attr-defined]
        reply = f"{labels[0]} {yes_word}. {take_back} {no_word}."
        yield _row(language, "correction", "unclear", "tf", "true", reply)
        yield _row(language, "correction", "unclear", "tf", "false", reply)
    for hedge in lang["hedge"]:  # type: ignore[attr-defined]
        yield _row(language, "hedged", "unclear", "tf", "true", f"{hedge} {yes_word}.")
    for reply in lang["negate"]:  # type: ignore[attr-defined]
        yield _row(language, "negated", "unclear", "tf", "true", reply)
    for reply in lang["question"]:  # type: ignore[attr-defined]
        yield _row(language, "question", "unclear", "tf", "true", reply)
    yield _row(language, "question", "unclear", "tf", "true", f"{yes_word.capitalize()}?")
    for reply in lang["sarcasm"]:  # type: ignore[attr-defined]
        yield _row(language, "sarcasm", "unclear", "tf", "true", reply)
    yield _row(language, "not_own", "unclear", "tf", "true", str(lang["that_clause"]))
    yield _row(language, "echoed_question", "unclear", "tf", "false", str(lang["flip_no"]))
    yield _row(language, "echoed_question", "unclear", "tf", "true", str(lang["flip_yes"]))
    quoted = f"> user: ?\n> agent: {yes_word.capitalize()}.\n\n{lang['closing']}"
    yield _row(language, "not_own", "unclear", "tf", "true", quoted)
    log = f"[12:01:07] agent: {yes_word.capitalize()}.\n[12:01:09] user: ok"
    yield _row(language, "not_own", "unclear", "tf", "true", log)
    example = f"Example:\nQ: ?\nA: {yes_word.capitalize()}.\n\n{labels[0]} {no_word}"
    yield _row(language, "not_own", "unclear", "tf", "true", example)
    yield _row(language, "two_answers", "unclear", "tf", "true", f"{labels[0]} {yes_word}, {no_word}")


def _values(language: str, lang: dict[str, object]) -> Iterator[Row]:
    labels: list[str] = lang["labels"]  # type: ignore[assignment]
    for label in labels:
        yield _row(language, "labelled", "correct", "numeric", "42", f"{label} 42")
        yield _row(language, "labelled", "wrong", "numeric", "41", f"{label} 42.")
        yield _row(language, "labelled", "correct", "choice", "B", f"{label} B")
        yield _row(language, "labelled", "wrong", "choice", "C", f"{label} **B**")
        yield _row(language, "contrastive", "correct", "numeric", "24", f"{label} 24, not 42.")
        for bound in lang["bounds"]:  # type: ignore[attr-defined]
            yield _row(language, "bound", "unclear", "numeric", "42", f"{label} {bound} 42")
        yield _row(language, "two_answers", "unclear", "numeric", "42", f"{label} 42, 43")
        yield _row(language, "two_answers", "unclear", "choice", "A", f"{label} A, B")
        sources = str(lang["sources"]).format(other="43")
        yield _row(language, "two_answers", "unclear", "numeric", "42", f"{label} 42; {sources}")
        contrast = str(lang["contrast"]).format(other="A")
        yield _row(language, "two_answers", "unclear", "choice", "B", f"{label} B. {contrast}")
        for take_back in lang["take_back"]:  # type: ignore[attr-defined]
            yield _row(language, "correction", "unclear", "numeric", "42", f"{label} 42. {take_back} 48.")
            yield _row(language, "correction", "unclear", "choice", "A", f"{label} A. {take_back} C.")
        restated = f"{label} 42. {str(lang['filler'][0])[:120]}... {lang['restate']} 48."  # type: ignore[index]
        yield _row(language, "correction", "unclear", "numeric", "42", restated)
    body = _long(lang, 8_000)
    yield _row(language, "long", "correct", "numeric", "42", f"{body}\n\n{lang['closing']}\n\n{labels[0]} 42")
    yield _row(language, "long", "correct", "choice", "D", f"{body}\n\n{lang['closing']}\n\n{labels[0]} (D)")
    yield _row(
        language, "read_window", "unclear", "numeric", "42", f"{labels[0]} 17\n\n{body}\n\n{labels[0]} 42"
    )
    for bound in lang["bounds"]:  # type: ignore[attr-defined]
        yield _row(language, "bound", "unclear", "numeric-bare", "42", f"{bound} 42")
        yield _row(language, "bound", "unclear", "numeric-bare", "42", f"{bound.capitalize()} 42.")


def _bare() -> Iterator[Row]:
    for reply in ("not 42", "less than 42", "more than 42", "at least 42", "about 42", "42?", "42+", "~42",
                  "≈42", "< 42", "≥ 42", "<42", "> 42", "~ 42", "≈ 42", "42 or more", "42, roughly",
                  "It isn't 42", "up to 42", "42-ish", "≤42"):  # fmt: skip
        yield _row("english", "bound", "unclear", "numeric-bare", "42", reply)
    yield _row("english", "underflow", "unclear", "numeric-bare", "0", "1e-400")
    yield _row("english", "underflow", "unclear", "numeric-bare", "0", "The value is 1e-400.")
    for reply in ("B?", "(B)?", "Answer: B. No, C.", "B. Wait, actually D.", "B. On second thought, C."):
        yield _row("english", "correction", "unclear", "choice-bare", "B", reply)
    for reply in ("B", "(B)", "**B**", "Answer: B", "The answer is B."):
        yield _row("english", "plain", "correct", "choice-bare", "B", reply)
    for reply in ("42", "The answer is 42.", "**42**", "Answer: 42 people", "$42"):
        yield _row("english", "plain", "correct", "numeric-bare", "42", reply)
    for reply in ("Ｙｅｓ", "Ａｎｓｗｅｒ： ｙｅｓ", "**Answer:** `yes`"):  # full-width forms read as ASCII
        yield _row("english", "lookalike", "correct", "tf", "true", reply)
    for reply in ("Yеs", "Аnswer: уes", "Νο"):  # Cyrillic and Greek look-alikes: not the words
        yield _row("english", "lookalike", "unclear", "tf", "true", reply)
    yield _row("english", "lookalike", "unclear", "tf", "false", "Νο")


def rows() -> list[Row]:
    found: list[Row] = []
    for language, lang in LANGUAGES.items():
        found.extend(_booleans(language, lang))
        found.extend(_values(language, lang))
    found.extend(_bare())
    preamble = {language: str(lang["filler"][3]) for language, lang in LANGUAGES.items()}
    framed = [
        {**row, "reply": f"{preamble[row['language']]}\n\n{row['reply']}"}
        for row in found
        if len(row["reply"]) < 200 and row["class"] not in ("not_own",) and not row["grader"].endswith("bare")
    ]
    return [{"id": f"{index:05d}", **row} for index, row in enumerate(found + framed)]


if __name__ == "__main__":
    with OUT.open("w", encoding="utf-8") as out:
        for row in rows():
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows())} rows written to {OUT}")
