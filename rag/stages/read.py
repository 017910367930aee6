"""Stage 3, read: the question's intent and the ``Evidence`` in, a ``Reading`` out: for each part
of the question, the candidate sentences scored by the reader (best first), and whether the
abstracts answer at all (with the reason when they do not). The reader is built once with the
engine, its weights loaded once (``rag.answer.reader.load_model``); every generator, offline or
LLM, receives its ``Reading``."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from rag.answer.cross_encoder import COLLECTION_FOLDER, MANIFEST_FILE, MODEL_FILE, CrossEncoder
from rag.answer.evidence import Reading
from rag.answer.intent import Intent
from rag.answer.model import ReaderModel
from rag.answer.reader import FittedReader, load_model
from rag.answer.rerank import Reranker
from rag.index.library import Library
from rag.retrieve.keyword import TermStats
from rag.settings import AnswerSettings
from rag.types import Evidence


def build_reader(library: Library, settings: AnswerSettings, model: ReaderModel | None = None,
                 data_dir: Path | None = None) -> FittedReader:
    folder = cross_encoder_folder(settings, data_dir)
    return FittedReader(library.embedder, settings, TermStats(library.catalog), model or load_model(),
                        shipped_reranker(folder) if settings.cross_encoder else None)


def cross_encoder_folder(settings: AnswerSettings, data_dir: Path | None) -> Path | None:
    """Which cross-encoder reads: the folder ``answer.cross_encoder_dir`` names; else the
    collection's own (``<data dir>/cross-encoder``, written by ``rag train-reader --cross-encoder``)
    when there is one; else None, the shipped model."""
    if settings.cross_encoder_dir is not None or data_dir is None:
        return settings.cross_encoder_dir
    own = data_dir / COLLECTION_FOLDER
    return own if (own / MANIFEST_FILE.name).is_file() else None


@cache
def shipped_reranker(folder: Path | None = None) -> Reranker | None:
    """The cross-encoder's reranker (the shipped one, or the one in ``folder``), loaded once a
    process (onnxruntime, never torch)."""
    if folder is None:
        return Reranker.shipped(CrossEncoder(threads=2))
    return Reranker.shipped(CrossEncoder(folder / MODEL_FILE.name, folder / MANIFEST_FILE.name, threads=2))


def read(reader: FittedReader, intent: Intent, evidence: Evidence) -> Reading:
    return reader.read(intent, evidence)
