"""Questions for sentences, written by the local model (Qwen2.5-Coder-1.5B, the model `rag local-llm`
serves, run here in-process through llama.cpp): for a sentence of an abstract, one question that
the sentence answers, in other words than the sentence's. Every reply is kept in the output with
a verdict (``kept`` and ``reason``): the filter drops questions that copy the sentence's words,
say its figure, or are generic ("What are the key limitations discussed in this research?").

Written as it goes (a flushed line per sentence) and resumable: a rerun skips the sentences
already in the file. Bounded by ``--minutes`` and ``--limit``. The prompt's instructions and
examples come first and are the same for every sentence, so llama.cpp reuses their evaluated
prefix (its prompt cache) and only the sentence is read anew.

    .venv/bin/python -m eval.training.llm_questions [--minutes 45] [--limit N] [--threads 2]
    .venv/bin/python -m eval.training.llm_questions --measure   # throughput figures only"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from eval.dataset import DATASETS
from eval.training.corpus import Guard, Sentence, bundled_papers, sentences_of
from rag.text.lexicon import GENERIC_TERMS, content_terms, stem, tokens
from rag.text.names import names
from rag.text.numbers import number_spans
from rag.types import Paper

OUT = DATASETS.parent / "training" / "llm_questions.jsonl"
SYSTEM = ("You write quiz questions about sentences from research abstracts. Given a sentence, "
          "write ONE question that the sentence answers. Use different words from the sentence: "
          "paraphrase, do not copy its phrases, and never put its numbers in the question. Ask "
          "for the specific detail the sentence gives, and name the method it is about when a "
          "name is given. Reply with the question only.")
EXAMPLES = (
    ("Method: SupReMix. Sentence: It takes anchor-inclusive mixtures (mixup of the anchor and a "
     "distinct negative sample) as hard negative pairs.",
     "What does SupReMix treat as difficult negative examples?"),
    ("Method: none. Sentence: Our experiments show the 7B model reaches 81.2% accuracy on GSM8K, "
     "outperforming larger baselines.",
     "How accurate is the 7B model on grade-school math word problems?"),
)
GENERIC = re.compile(r"\b(?:key|main|primary)\s+(?:limitations?|contributions?|findings?|challenges?|ideas?)\b|"
                     r"\b(?:this|the)\s+(?:research|study|paper|work|sentence|abstract)\b", re.IGNORECASE)
MAX_COPIED = 0.6  # share of the question's content words taken from the sentence


def messages(sentence: Sentence, method: str | None) -> list[dict[str, str]]:
    out = [{"role": "system", "content": SYSTEM}]
    for ask, reply in EXAMPLES:
        out += [{"role": "user", "content": ask}, {"role": "assistant", "content": reply}]
    out.append({"role": "user", "content": f"Method: {method or 'none'}. Sentence: {sentence.text}"})
    return out


def verdict(question: str, sentence: str, method: str | None) -> str:
    """"ok", or why the question is dropped."""
    words = question.split()
    if not question.endswith("?") or not 5 <= len(words) <= 30 or "\n" in question:
        return "not one question"
    if GENERIC.search(question) and not names(question):
        return "generic"
    own = {stem(method)} if method else set()
    mine = content_terms(question) - own - {stem(w) for w in GENERIC_TERMS}
    if len(mine) < 2:
        return "generic"
    if len(mine & content_terms(sentence)) / len(mine) > MAX_COPIED:
        return "copies the sentence"
    said = {m.group(0).lower() for m in number_spans(sentence)}
    if said & {m.group(0).lower() for m in number_spans(question)}:
        return "says the answer"
    low = question.lower()
    if any(" ".join(t) in low for t in _ngrams([w.lower() for w in tokens(sentence)], 4)):
        return "copies the sentence"
    return "ok"


def _ngrams(words: list[str], n: int) -> Iterator[tuple[str, ...]]:
    return (tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def targets(seed: int = 5, papers: Sequence[Paper] | None = None) -> list[tuple[Sentence, str | None]]:
    """Sentences worth a question, informative ones first (a figure, a name, a claim), in a
    fixed shuffled order; sentences holding a test question's key fact are never targets.
    ``papers``: a collection's own (default: the bundled abstracts)."""
    guard = Guard.test_split()
    rich: list[tuple[Sentence, str | None]] = []
    plain: list[tuple[Sentence, str | None]] = []
    for paper in bundled_papers() if papers is None else papers:
        for s in sentences_of(paper):
            if guard.sentence_blocked(s.paper, s.text) or len(s.text.split()) > 60:
                continue
            (rich if number_spans(s.text) or names(s.text) else plain).append((s, paper.method))
    rng = random.Random(seed)
    rng.shuffle(rich)
    rng.shuffle(plain)
    return rich + plain


def load_model(threads: int, n_ctx: int = 1024, name: str = "qwen"):  # type: ignore[no-untyped-def]
    from llama_cpp import Llama

    from rag.llm.local import local_model
    from rag.settings import Settings

    model = local_model(name, Settings().data_dir / "models")
    return Llama(model_path=str(model.path), n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads,
                 verbose=False)


def ask(llm, sentence: Sentence, method: str | None) -> str:  # type: ignore[no-untyped-def]
    reply = llm.create_chat_completion(messages(sentence, method), max_tokens=48, temperature=0.3,
                                       seed=1, stop=["\n"])
    return reply["choices"][0]["message"]["content"].strip().strip('"')


def done_keys(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return {json.loads(line)["key"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


Asker = Callable[[Sentence, "str | None"], str]


def generate(out: Path, minutes: float, limit: int | None, threads: int,
             papers: Sequence[Paper] | None = None, asker: Asker | None = None,
             model: str = "qwen") -> dict[str, int]:
    """Questions for ``papers``' sentences (default: the bundled abstracts), appended to ``out``;
    ``asker`` replaces the local model, ``model`` names another (tests: smollm2)."""
    done = done_keys(out)
    todo = [(s, m) for s, m in targets(papers=papers) if s.key not in done][:limit]
    if asker is None:
        llm = load_model(threads, name=model)
        asker = lambda sentence, method: ask(llm, sentence, method)  # noqa: E731
    guard = Guard.test_split()
    deadline = time.monotonic() + minutes * 60
    counts = {"written": 0, "kept": 0}
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as handle:
        for sentence, method in todo:
            if time.monotonic() > deadline:
                break
            started = time.monotonic()
            question = asker(sentence, method)
            reason = verdict(question, sentence.text, method)
            if reason == "ok" and guard.question_overlaps(question):
                reason = "overlaps a test question"
            row = {"key": sentence.key, "paper": sentence.paper, "sentence": sentence.text, "method": method,
                   "question": question, "kept": reason == "ok", "reason": reason,
                   "seconds": round(time.monotonic() - started, 2)}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            handle.flush()
            counts["written"] += 1
            counts["kept"] += reason == "ok"
            if counts["written"] % 25 == 0:
                print(f"{counts['written']} written, {counts['kept']} kept, {len(done) + counts['written']} "
                      f"in {out}", flush=True)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--minutes", type=float, default=45.0)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--measure", action="store_true", help="print llama.cpp throughput figures and stop")
    args = parser.parse_args()
    if args.measure:
        from eval.training.llm_speed import measure

        measure(args.threads)
        return
    print(generate(args.out, args.minutes, args.limit, args.threads))


if __name__ == "__main__":
    main()
