"""BERT's uncased WordPiece tokenizer, as all-MiniLM-L6-v2's ``tokenizer.json`` describes it, in plain Python.

It gives the ids HuggingFace's ``tokenizers`` gives for that file (a test compares them on text of every
script) without that library, which requires ``huggingface_hub``, an SDK with console scripts of its own.
``from_file`` refuses a file that asks for steps other than these: the special tokens (``[SEP]``…) cut out
of the raw text; ``BertNormalizer`` (drop NUL, U+FFFD, control, format, private-use and surrogate characters,
any whitespace a space, spaces around CJK ideographs, NFD without nonspacing marks, each character
lower-cased); ``BertPreTokenizer`` (words split at spaces and around each punctuation character);
``WordPiece`` (longest vocabulary entry first, then ``##`` pieces; ``[UNK]`` for a word that cannot be split
or is longer than ``max_input_chars_per_word``); ``[CLS]``, the first ``max_tokens`` - 2 ids, ``[SEP]``.
The file's own padding and truncation (to 128) are not used: one text at a time, cut at ``max_tokens``.
"""

from __future__ import annotations

import functools
import json
import re
import string
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Encoding", "WordPiece"]


_WHITESPACE = frozenset("\t\n\r\x0b\x0c \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000").union(
    map(chr, range(0x2000, 0x200B))
)
"""Rust's ``char::is_whitespace`` (the Unicode White_Space property), which ``tokenizers`` splits on."""
_CJK = re.compile(
    "[\u4e00-\u9fff\u3400-\u4dbf\U00020000-\U0002a6df\U0002a700-\U0002b73f\U0002b740-\U0002b81f"
    "\U0002b920-\U0002ceaf\uf900-\ufaff\U0002f800-\U0002fa1f]"
)
"""The ideographs BERT puts spaces around (``tokenizers``' ``is_chinese_char``); kana and Hangul are words."""
_DROPPED = frozenset({"Cc", "Cf", "Co", "Cs"})
"""Categories ``clean_text`` removes (``unicode_categories``' ``is_other``; unassigned characters stay)."""
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
_CHANGED = {"\u1734": "Mn", "\u166d": "Po", "\U000111c9": "Po"}  # recategorised since: Unicode 8.0 said
_MAX_CACHED_CHARS = 65_536
"""Distinct characters whose mapping is kept: every text's alphabet, not every code point there is."""
_UNKNOWN = frozenset(
    code
    for first, _, last in (item.partition("-") for item in _NEWER_THAN_UNICODE_8.split())
    for code in range(int(first, 16), int(last or first, 16) + 1)
)
_NORMALIZER: dict[str, object] = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True}
_NORMALIZER |= {"strip_accents": None, "lowercase": True}  # strip_accents None: strip when lower-casing
_STEPS = (_NORMALIZER, "BertPreTokenizer", "WordPiece", "TemplateProcessing")
"""The steps ``from_file`` accepts, as the file names them: the ones implemented here."""
_TEMPLATE = [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}]
_TEMPLATE.append({"SpecialToken": {"id": "[SEP]", "type_id": 0}})  # [CLS] $A [SEP]


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
    return f" {char} " if _CJK.fullmatch(char) else char


def _folded(char: str) -> str:
    """One character of the NFD text without nonspacing marks, lower-cased, punctuation spaced apart."""
    if _category(char) == "Mn":
        return ""
    lowered = char.lower()  # one character at a time: no final sigma, as in Rust's char::to_lowercase
    return "".join(
        f" {low} " if low in string.punctuation or _category(low).startswith("P") else low for low in lowered
    )


class _CharTable(dict[int, str]):
    """A ``str.translate`` table filled on first sight of each character, bounded in size."""

    def __init__(self, mapping: Callable[[str], str]) -> None:
        super().__init__()
        self._mapping = mapping

    def __missing__(self, code: int) -> str:
        mapped = self._mapping(chr(code))
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
        model, template, added = spec["model"], spec["post_processor"], spec["added_tokens"]
        found = (spec["normalizer"], spec["pre_tokenizer"]["type"], model["type"], template["type"])
        expected = (
            {"type": "BertNormalizer", **_NORMALIZER},
            "BertPreTokenizer",
            "WordPiece",
            "TemplateProcessing",
        )
        if found != expected or model["continuing_subword_prefix"] != "##" or template["single"] != _TEMPLATE:
            raise ValueError(f"{path} asks for steps this tokenizer does not implement: {found}")
        if any(
            t["normalized"] or t["single_word"] or t["lstrip"] or t["rstrip"] or not t["special"]
            for t in added
        ):
            raise ValueError(f"{path} has added tokens matched otherwise than whole, in the raw text")
        specials = {token["content"]: token["id"] for token in added}
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
