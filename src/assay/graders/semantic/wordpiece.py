"""BERT's WordPiece tokenizer, as all-MiniLM-L6-v2's ``tokenizer.json`` describes it, in plain Python.

It gives the ids HuggingFace's ``tokenizers`` gives for that file (a test compares the two on generated text
of every script), without that library: ``tokenizers`` requires ``huggingface_hub``, an SDK with console
scripts of its own, and the semantic grader needs none of it. Only what the file uses is implemented, and
``from_file`` refuses a file that asks for anything else:

1. The special tokens (``[CLS]``, ``[SEP]``, ``[MASK]``…) are cut out of the raw text and kept whole.
2. ``BertNormalizer``: drop NUL, U+FFFD and control, format, private-use and surrogate characters; every
   whitespace becomes a space; spaces around CJK ideographs; NFD without its nonspacing marks (accents);
   each character lower-cased on its own.
3. ``BertPreTokenizer``: words split at spaces, each punctuation character a word of its own.
4. ``WordPiece``: the longest vocabulary entry first, then ``##`` pieces; a word that cannot be split, or
   longer than ``max_input_chars_per_word``, is ``[UNK]``.
5. ``[CLS]`` + the first ``max_tokens`` - 2 ids + ``[SEP]``, as ``TemplateProcessing`` and truncation do.
"""

from __future__ import annotations

import functools
import json
import re
import string
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Encoding", "WordPiece"]

_WHITESPACE = frozenset("\t\n\r\x0b\x0c \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    map(chr, range(0x2000, 0x200B))
)
"""Rust's ``char::is_whitespace`` (the Unicode White_Space property), which ``tokenizers`` splits on."""
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F))
_CJK += ((0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))
"""The ideograph blocks BERT puts spaces around (``tokenizers``' ``is_chinese_char``), other CJK scripts not."""
_DROPPED = frozenset({"Cc", "Cf", "Co", "Cs"})
"""Categories removed by ``clean_text`` (``unicode_categories``' ``is_other``, unassigned ones kept)."""
_NEWER_THAN_UNICODE_8 = (
    "61D 7FD 890-891 898-89F 8CA-8E2 9FD-9FE A76 AFA-AFF B55 C04 C3C C77 C84 D00 D3B-D3C D81 EBA 180F "
    "1885-1886 1ABF-1ACE 1B7D-1B7E 1DF6-1DFB 2E43-2E4F 2E52-2E5D A82C A8C5 A8FF A9BD 10D24-10D27 10EAB-10EAD "
    "10F46-10F50 10F55-10F59 10F82-10F89 11070 11073-11074 110C2 110CD 111CF 1123E 1133B 11438-1143F "
    "11442-11444 11446 1144B-1144F 1145A-1145B 1145D-1145E 11660-1166C 116B9 1182F-11837 11839-1183B "
    "1193B-1193C 1193E 11943-11946 119D4-119D7 119DA-119DB 119E0 119E2 11A01-11A0A 11A33-11A38 11A3B-11A47 "
    "11A51-11A56 11A59-11A5B 11A8A-11A96 11A98-11A9C 11A9E-11AA2 11C30-11C36 11C38-11C3D 11C3F 11C41-11C45 "
    "11C70-11C71 11C92-11CA7 11CAA-11CB0 11CB2-11CB3 11CB5-11CB6 11D31-11D36 11D3A 11D3C-11D3D 11D3F-11D45 "
    "11D47 11D90-11D91 11D95 11D97 11EF3-11EF4 11EF7-11EF8 11FFF 12FF1-12FF2 13430-13438 16E97-16E9A 16F4F "
    "16FE2 16FE4 1CF00-1CF2D 1CF30-1CF46 1E000-1E006 1E008-1E018 1E01B-1E021 1E023-1E024 1E026-1E02A "
    "1E130-1E136 1E2AE 1E2EC-1E2EF 1E944-1E94A 1E95E-1E95F"
)
"""Marks, punctuation and format characters Python's Unicode database knows and ``tokenizers`` does not: its
``unicode_categories`` tables are Unicode 8.0's, so they are plain letters there (Python 3.11's Unicode 14.0
compared with ``tokenizers`` code point by code point; later Pythons' newer characters are not listed)."""
_CHANGED = {"\u1734": "Mn", "\u166d": "Po", "\U000111c9": "Po"}
"""Characters whose category changed after Unicode 8.0, with their category there."""
_MAX_CACHED_CHARS = 65_536
"""Distinct characters whose mapping is kept: every text's alphabet, not every code point there is."""
_EXPECTED = {
    "normalizer": {
        "type": "BertNormalizer",
        "clean_text": True,
        "handle_chinese_chars": True,
        "strip_accents": None,  # None: strip when lower-casing
        "lowercase": True,
    },
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "model.type": "WordPiece",
    "model.continuing_subword_prefix": "##",
    "post_processor.single": ["[CLS]", "$A", "[SEP]"],
}
"""What ``from_file`` requires of the file: the settings this module implements, nothing else."""


def _code_points(ranges: str) -> frozenset[int]:
    """The code points of ``"61D 890-891 …"``."""
    bounds = [[int(end, 16) for end in item.split("-")] for item in ranges.split()]
    return frozenset(code for ends in bounds for code in range(ends[0], ends[-1] + 1))


_UNKNOWN = _code_points(_NEWER_THAN_UNICODE_8)


def _category(char: str) -> str:
    """The character's general category as ``tokenizers`` sees it (``Cn``: it does not know it)."""
    return _CHANGED.get(char) or ("Cn" if ord(char) in _UNKNOWN else unicodedata.category(char))


def _cleaned(char: str) -> str:
    """One character after ``clean_text`` and ``handle_chinese_chars``."""
    if char in "\t\n\r":
        return " "
    if char in "\x00\ufffd" or _category(char) in _DROPPED:  # before whitespace: \x0b is gone
        return ""
    if char in _WHITESPACE:
        return " "
    code = ord(char)
    return f" {char} " if any(low <= code <= high for low, high in _CJK) else char


def _is_punctuation(char: str) -> bool:
    return char in string.punctuation or _category(char).startswith("P")


def _folded(char: str) -> str:
    """One character of the NFD text without nonspacing marks, lower-cased, punctuation spaced apart."""
    if _category(char) == "Mn":
        return ""
    return "".join(f" {low} " if _is_punctuation(low) else low for low in char.lower())


class _CharTable(dict[int, str]):
    """A ``str.translate`` table filled on first sight of each character, bounded in size."""

    def __init__(self, mapping: Any) -> None:
        super().__init__()
        self._mapping = mapping

    def __missing__(self, code: int) -> str:
        mapped: str = self._mapping(chr(code))
        if len(self) < _MAX_CACHED_CHARS:
            self[code] = mapped
        return mapped


@dataclass(frozen=True, slots=True)
class Encoding:
    """The ids the model reads (``[CLS]`` … ``[SEP]``), and whether tokens past ``max_tokens`` were cut."""

    ids: list[int]
    truncated: bool


class WordPiece:
    """A BERT uncased WordPiece tokenizer; thread-safe (its caches only ever gain equal entries)."""

    def __init__(self, vocab: dict[str, int], specials: dict[str, int], max_word_chars: int, max_tokens: int):
        self._vocab = vocab
        self._specials = specials
        self._unk, self._cls, self._sep = specials["[UNK]"], specials["[CLS]"], specials["[SEP]"]
        self._max_word_chars = max_word_chars
        self._max_tokens = max_tokens
        names = sorted(specials, key=len, reverse=True)  # leftmost-longest, as tokenizers matches them
        self._special_split = re.compile("(" + "|".join(map(re.escape, names)) + ")")
        self._clean = _CharTable(_cleaned)
        self._fold = _CharTable(_folded)
        self._word_ids = functools.lru_cache(maxsize=65_536)(self._split_word)

    @classmethod
    def from_file(cls, path: Path, max_tokens: int) -> WordPiece:
        """The tokenizer of a ``tokenizer.json``; ``ValueError`` when the file asks for other steps."""
        spec = json.loads(path.read_text(encoding="utf-8"))
        model, template = spec["model"], spec["post_processor"]
        found = {
            "normalizer": spec["normalizer"],
            "pre_tokenizer": spec["pre_tokenizer"],
            "model.type": model["type"],
            "model.continuing_subword_prefix": model["continuing_subword_prefix"],
            "post_processor.single": [_template_name(part) for part in template["single"]],
        }
        if found != _EXPECTED:
            raise ValueError(f"{path} asks for steps this tokenizer does not implement: {found}")
        specials = {token["content"]: token["id"] for token in spec["added_tokens"]}
        if not all(token["special"] and not token["normalized"] for token in spec["added_tokens"]) or any(
            token[flag] for token in spec["added_tokens"] for flag in ("single_word", "lstrip", "rstrip")
        ):
            raise ValueError(f"{path} has added tokens matched otherwise than whole, in the raw text")
        vocab: dict[str, int] = model["vocab"]
        if specials[model["unk_token"]] != vocab[model["unk_token"]] or "[CLS]" not in specials:
            raise ValueError(f"{path} has special tokens that are not in its vocabulary")
        return cls(vocab, specials, int(model["max_input_chars_per_word"]), max_tokens)

    def encode(self, text: str) -> Encoding:
        """The ids of ``text``: at most ``max_tokens``, ``[CLS]`` and ``[SEP]`` included."""
        room = self._max_tokens - 2
        ids: list[int] = []
        pieces = self._special_split.split(text) if "[" in text else [text]
        for index, piece in enumerate(pieces):
            if index % 2:
                ids.append(self._specials[piece])
            else:
                for word in self._normalized(piece).split(" "):
                    if word:
                        ids.extend(self._word_ids(word))
            if len(ids) > room:  # the rest would be cut: not worth normalising
                break
        return Encoding([self._cls, *ids[:room], self._sep], len(ids) > room)

    def _normalized(self, piece: str) -> str:
        """``piece`` normalised, with spaces around each punctuation character."""
        cleaned = piece.translate(self._clean)
        return (cleaned if cleaned.isascii() else unicodedata.normalize("NFD", cleaned)).translate(self._fold)

    def _split_word(self, word: str) -> tuple[int, ...]:
        """The ids of one word: greedy longest-match-first, as BERT's WordPiece does."""
        if len(word) > self._max_word_chars:
            return (self._unk,)
        ids: list[int] = []
        start, vocab = 0, self._vocab
        while start < len(word):
            for end in range(len(word), start, -1):
                found = vocab.get(word[start:end] if start == 0 else "##" + word[start:end])
                if found is not None:
                    ids.append(found)
                    start = end
                    break
            else:
                return (self._unk,)
        return tuple(ids)


def _template_name(part: dict[str, dict[str, Any]]) -> str:
    """``[CLS]``, ``$A``… for one part of a ``TemplateProcessing`` template (type ids are all 0 here)."""
    (kind, body), = part.items()
    if body["type_id"] != 0:
        return f"{kind}:{body}"
    return "$" + str(body["id"]) if kind == "Sequence" else str(body["id"])
