"""The semantic grader's own WordPiece tokenizer gives HuggingFace ``tokenizers``' ids for the model's file.

``tokenizers`` is the reference only: the ``dev`` extra installs it (skipped locally without it, required in
CI); the grader never imports it.
"""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from assay.graders.semantic import embedding
from assay.graders.semantic.wordpiece import WordPiece
from tests.support.requirements import require
from tests.support.semantic import installed_model_file

LIMITS = (8, 32, embedding.MAX_TOKENS)
"""Token budgets compared (``[CLS]`` and ``[SEP]`` included): small ones make truncation cheap to reach."""


@pytest.fixture(scope="module")
def tokenizer_file() -> Path:
    return installed_model_file("tokenizer.json")


@pytest.fixture(scope="module")
def reference(tokenizer_file: Path) -> dict[int, Any]:
    """``tokenizers``, set up as the grader set it up before it had its own tokenizer, per budget."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        require(False, "the tokenizers package (the dev extra's reference tokenizer)")
    made = {}
    for limit in LIMITS:
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=limit)
        made[limit] = tokenizer
    return made


@pytest.fixture(scope="module")
def ours(tokenizer_file: Path) -> dict[int, WordPiece]:
    return {limit: WordPiece.from_file(tokenizer_file, limit) for limit in LIMITS}


def _utf8(text: str) -> str:
    """``text`` as the grader used to hand it to ``tokenizers`` (lone surrogates as U+FFFD)."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _chars(low: int, high: int) -> st.SearchStrategy[str]:
    return st.text(st.characters(min_codepoint=low, max_codepoint=high), min_size=1, max_size=8)


_PIECES = st.one_of(
    st.text(string.ascii_letters + string.digits + " .,;:!?'\"-()", min_size=1, max_size=40),  # sentences
    st.sampled_from(list(string.punctuation) + list("«»—–…¡¿、。「」『』《》·•§¶†‰′″‹›")),
    _chars(0xC0, 0x24F),  # Latin with diacritics
    _chars(0x300, 0x36F),  # combining accents
    _chars(0x4E00, 0x9FFF),  # CJK ideographs (spaced apart)
    _chars(0x3040, 0x30FF),  # kana (not spaced)
    _chars(0xAC00, 0xD7A3),  # Hangul syllables (NFD splits them)
    _chars(0x400, 0x4FF),  # Cyrillic
    _chars(0x600, 0x6FF),  # Arabic, with marks and punctuation newer than the reference's tables
    _chars(0x1F300, 0x1FAFF),  # emoji
    _chars(0x0, 0x1F) | _chars(0x7F, 0x9F),  # control characters
    st.text(
        st.sampled_from("\u200b\u200c\u200d\u200e\u200f\u2060\ufeff\u180e\u00ad"), min_size=1
    ),  # zero-width
    st.text(st.sampled_from(" \t\n\r\x0b\x0c\xa0\u3000\u2028\u2029\u1680\u2003\x85"), min_size=1),  # spaces
    _chars(0xD800, 0xDFFF),  # lone surrogates, as a Python str may hold them
    st.integers().map(str) | st.floats(allow_nan=False).map(str),  # numbers
    st.text(string.ascii_lowercase, min_size=95, max_size=110),  # around max_input_chars_per_word (100)
    st.sampled_from(["[CLS]", "[SEP]", "[MASK]", "[UNK]", "[PAD]", "[cls]", "[SEP", "[[MASK]]"]),
    st.text(max_size=8),  # anything at all
)


@given(st.lists(_PIECES, max_size=24).map("".join), st.sampled_from(LIMITS))
@example("Hello, World! Ça va? naïve café", embedding.MAX_TOKENS)
@example("東京は日本の首都です。Москва — столица России.", embedding.MAX_TOKENS)
@example("I love it 🙂🤣 [SEP] [MASK]done[CLS]", 8)
@example("a\ud800b\udfff \x00\ufffd\u200bc\x0bd\x85e", 8)
@example("supercalifragilisticexpialidocious" * 3 + " unaffable", embedding.MAX_TOKENS)
@example("İstanbul ΑΣ Straße ﬁ ǅ", embedding.MAX_TOKENS)
@example("a\u061db\u07fdc\u166dd\u1734e\U000111c9f", embedding.MAX_TOKENS)  # categories newer than Unicode 8
@example("word " * 300, embedding.MAX_TOKENS)
@example("", 8)
def test_ids_and_truncation_are_those_of_tokenizers(
    reference: dict[int, Any], ours: dict[int, WordPiece], text: str, limit: int
) -> None:
    expected = reference[limit].encode(_utf8(text))
    encoding = ours[limit].encode(text)
    assert encoding.ids == expected.ids
    assert encoding.truncated is bool(expected.overflowing)


def test_a_long_text_is_cut_to_the_budget_with_its_special_tokens(ours: dict[int, WordPiece]) -> None:
    encoding = ours[8].encode("one two three four five six seven")
    assert len(encoding.ids) == 8
    assert (encoding.ids[0], encoding.ids[-1], encoding.truncated) == (101, 102, True)
    assert ours[8].encode("one two three four five six").truncated is False  # exactly 6 + 2


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("normalizer", "lowercase"), False),
        (("normalizer", "strip_accents"), False),
        (("normalizer", "type"), "NFKC"),
        (("pre_tokenizer", "type"), "Whitespace"),
        (("model", "continuing_subword_prefix"), "@@"),
        (("post_processor", "single", 0, "SpecialToken", "id"), "[SEP]"),
        (("added_tokens", 0, "normalized"), True),
        (("added_tokens", 1, "lstrip"), True),
    ],
)
def test_a_file_asking_for_other_steps_is_refused(
    tokenizer_file: Path, tmp_path: Path, path: tuple[str | int, ...], value: object
) -> None:
    spec = json.loads(tokenizer_file.read_text(encoding="utf-8"))
    *parents, key = path
    node = spec
    for step in parents:
        node = node[step]
    node[key] = value
    changed = tmp_path / "tokenizer.json"
    changed.write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(ValueError, match=r"tokenizer\.json"):
        WordPiece.from_file(changed, embedding.MAX_TOKENS)
