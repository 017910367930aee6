"""What benchmarks/soak.py does to the index while traffic runs, each as an operator would, from
another process: a plain ingest; a `--rebuild` raced by a plain ingest started 1.6 s after it;
a garbage index.json (then a `rag ingest`, which must recover it); a full disk during an ingest
(then the same ingest once space is freed); a plain-text file edited (abstracts prepended,
removed, appended) and ingested again; papers in Chinese, Russian, Arabic and Greek without ids;
duplicate ids inside a file and across files; and, at the end, the papers served compared with a
clean build of the same files, by id and by text.

The full disk is real: the data directory lives on a small tmpfs the soak mounts (root, or a
user namespace). Where mounting is impossible, the disk fills by an ENOSPC injected at the
store boundary of an in-process ingest instead; the report says which was used."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx

TOPICS = ["coral reef acoustics", "glacier melt forecasting", "bee colony health", "urban heat islands",
          "deep sea sediment dating", "river delta mapping", "alpine lake diatoms", "desert dune drift"]


def papers(path: Path, prefix: str, count: int) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            topic = TOPICS[(i + len(prefix)) % len(TOPICS)]
            out.write(json.dumps({"id": f"{prefix}-{i}", "year": 2026, "authors": [f"A. {prefix.title()} {i}"],
                                  "abstract": f"We propose {prefix.title()}{i}Net, a model for {topic} "
                                  f"trained on {100 + 7 * i} field sites in {prefix} survey {i}. It "
                                  f"improves accuracy by {i % 9 + 1}.{i % 7} points over the strongest "
                                  f"{topic} baseline and runs {i % 5 + 2} times faster."}) + "\n")
    return path


WORLD = ["我们提出一种从卫星图像估计湖冰厚度的方法，并在三个冬季的实地测量上评估。",
         "我们研究大型语言模型在法律问答中的表现，并发布一个包含五千个问题的基准。",
         "Мы предлагаем метод оценки толщины льда на озёрах по спутниковым снимкам.",
         "Мы изучаем, как языковые модели отвечают на юридические вопросы.",
         "نقترح طريقة لتقدير سماكة الجليد في البحيرات من صور الأقمار الصناعية.",
         "Προτείνουμε μια μέθοδο για την εκτίμηση του πάχους του πάγου σε λίμνες.",
         "Μελετάμε πώς τα γλωσσικά μοντέλα απαντούν σε νομικές ερωτήσεις."]


def plain_text(path: Path, numbers: list[int]) -> Path:
    """A plain-text (bundled-format) file of long abstracts, one per number, in that order."""
    paragraphs = [f"We study lab notebook topic {n}: " + " ".join(
        f"{TOPICS[(n + k) % len(TOPICS)]} measurement {n * 31 + k}" for k in range(12)) + "."
        for n in numbers]
    path.write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return path


def world(path: Path) -> Path:
    path.write_text("".join(json.dumps({"abstract": t}, ensure_ascii=False) + "\n" for t in WORLD),
                    encoding="utf-8")
    return path


def duplicate_ids(path: Path) -> Path:
    """``dup-1`` twice with two texts, and ``soak-0`` (which new.jsonl holds) with another text."""
    rows = [{"id": "dup-1", "abstract": "We map kelp forests from drone images along a rocky coast."},
            {"id": "dup-1", "abstract": "We count nesting seabirds on cliffs with thermal cameras."},
            {"id": "soak-0", "abstract": "We date cave paintings with uranium series on calcite crusts."}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def mount_tmpfs(where: Path, megabytes: int) -> str:
    """Mount a small tmpfs at ``where``: "tmpfs" when done, "" when this machine does not allow it."""
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(where)],
                          capture_output=True)
    return "tmpfs" if done.returncode == 0 else ""


def unmount(where: Path) -> None:
    subprocess.run(["umount", "--lazy", str(where)], capture_output=True)  # the clean build's Chroma may hold files


class Events:
    def __init__(self, data_dir: Path, sources: Path, env: dict, url: str, mounted: bool) -> None:
        self.data_dir, self.sources, self.env, self.url = data_dir, sources, env, url
        self.mounted = mounted
        self.log: list[str] = []
        self.files: list[Path] = []  # every file ingested, in order, for the clean build
        self.failures: list[str] = []

    def rag(self, *args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "cli", *args], env=self.env, capture_output=True,
                              text=True, timeout=timeout)

    def note(self, text: str) -> None:
        self.log.append(f"[{time.strftime('%H:%M:%S')}] {text}")
        print(self.log[-1], flush=True)

    def expect(self, ok: bool, what: str) -> None:
        if not ok:
            self.failures.append(what)
            self.note(f"FAILED: {what}")

    def ready(self) -> dict:
        try:
            reply = httpx.get(f"{self.url}/readyz", timeout=30)
            return {"status": reply.status_code, **reply.json()}
        except (httpx.HTTPError, ValueError) as exc:
            return {"status": type(exc).__name__}

    def wait_ready(self, status: int, seconds: float = 15) -> dict:
        deadline = time.monotonic() + seconds
        while True:
            found = self.ready()
            if found["status"] == status or time.monotonic() > deadline:
                return found
            time.sleep(0.2)

    @staticmethod
    def last_line(done: subprocess.CompletedProcess) -> str:
        lines = [line for line in (done.stdout + done.stderr).splitlines() if not line.startswith("ingest ")]
        return lines[-1] if lines else ""

    def ingest(self, path: Path) -> None:
        started = time.monotonic()
        done = self.rag("ingest", str(path), "--wait", "600")
        self.files.append(path)
        self.note(f"rag ingest {path.name}: exit {done.returncode} in {time.monotonic() - started:.0f} s: "
                  f"{self.last_line(done)}")
        self.expect(done.returncode == 0, f"ingest of {path.name}")

    def race(self, rebuilt: list[Path], late: Path) -> None:
        """`rag ingest --rebuild ... &` and, 1.6 s later, `rag ingest late` (issue 19.1)."""
        started = time.monotonic()
        command = [sys.executable, "-m", "cli", "ingest", "--rebuild", *map(str, rebuilt), "--yes"]
        rebuild = subprocess.Popen(command, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        time.sleep(1.6)
        plain = self.rag("ingest", str(late), "--wait", "1800")
        out, err = rebuild.communicate(timeout=1800)
        self.files += [*rebuilt, late]
        rebuilt_line = self.last_line(subprocess.CompletedProcess(command, rebuild.returncode, out, err))
        self.note(f"rag ingest --rebuild ({len(rebuilt)} sources): exit {rebuild.returncode}: {rebuilt_line}")
        self.note(f"rag ingest {late.name} 1.6 s later (waits for the lock): exit {plain.returncode}: "
                  f"{self.last_line(plain)}; both done in {time.monotonic() - started:.0f} s")
        self.expect(rebuild.returncode == 0 and plain.returncode == 0, "rebuild race: both exit 0")

    def corrupt_stamp(self, repair: Path) -> None:
        """Garbage in index.json: the service keeps serving and /readyz says why; `rag ingest`
        recovers the newest generation and goes on (issue 19.2)."""
        (self.data_dir / "index.json").write_text("garbage\n")
        seen = self.wait_ready(503)
        self.note(f"index.json := garbage: /readyz {seen['status']} {seen.get('code')}, serving "
                  f"generation {seen.get('generation')}")
        self.expect(seen.get("code") == "index_not_current", "a garbage stamp fails /readyz")
        time.sleep(5)  # traffic goes on against the garbage stamp
        done = self.rag("ingest", str(repair), "--wait", "600")
        self.files.append(repair)
        recovered = "recovered" in done.stderr
        self.note(f"rag ingest {repair.name}: exit {done.returncode}, recovered: {recovered}: "
                  f"{self.last_line(done)}")
        self.expect(done.returncode == 0 and recovered, "ingest recovers a garbage stamp")
        back = self.wait_ready(200)
        self.note(f"/readyz {back['status']}, generation {back.get('generation')}")

    def full_disk(self, big: Path, mount_point: Path) -> None:
        """An ingest that fills the disk: one line, the service keeps serving; then the same
        ingest once space is freed (issue 19.7)."""
        filler = mount_point / "filler"
        free = os.statvfs(mount_point).f_bavail * os.statvfs(mount_point).f_frsize
        with filler.open("wb") as handle:
            handle.truncate(0)
            left = free - 1_500_000
            while left > 0:
                handle.write(b"\0" * min(left, 1 << 20))
                left -= 1 << 20
        done = self.rag("ingest", str(big), "--wait", "600")
        lines = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("ingest ")]
        self.note(f"disk full (tmpfs, {free / 1e6:.0f} MB filled to 1.5 MB free): rag ingest {big.name}: exit "
                  f"{done.returncode}, {len(lines)} line(s) of error: {lines[-1] if lines else ''}")
        self.expect(done.returncode == 1 and len(lines) == 1 and "is full" in lines[0], "one clear line")
        time.sleep(15)  # traffic goes on against the full disk
        seen = self.ready()
        self.note(f"/readyz on the full disk: {seen['status']}, generation {seen.get('generation')}")
        filler.unlink()
        self.ingest(big)

    def edit(self, path: Path) -> None:
        """A plain-text file ingested, then edited (two abstracts prepended, one removed from the
        middle, one appended) and ingested again under traffic (issue 27, item 1)."""
        plain_text(path, list(range(1, 9)))
        self.ingest(path)
        plain_text(path, [20, 21, 1, 2, 3, 5, 6, 7, 8, 22])
        before = self.files.copy()
        self.ingest(path)
        self.files = before  # the clean build reads the file once, as it is now

    def foreign_and_duplicates(self) -> None:
        """Papers in four scripts without ids, and duplicate ids (issue 27, items 2-3)."""
        self.ingest(world(self.sources / "world.jsonl"))
        self.ingest(duplicate_ids(self.sources / "duplicates.jsonl"))

    def full_disk_injected(self, big: Path) -> None:
        """The same, where no filesystem can be mounted: ENOSPC at the store boundary."""
        from rag.index.diskspace import DiskFullError
        from rag.index.library import open_library
        from rag.ingest.pipeline import ingest
        from rag.settings import Settings

        class Full:
            def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
                self.inner, self.left = inner, 1

            def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
                return getattr(self.inner, name)

            def upsert(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
                if self.left == 0:
                    raise OSError(28, "No space left on device")
                self.left -= 1
                self.inner.upsert(*args, **kwargs)

        lib = open_library(Settings(data_dir=self.data_dir))
        lib.vectors = Full(lib.vectors)
        try:
            ingest(lib, [big], batch_size=32)
            self.expect(False, "the injected full disk stops the ingest")
        except DiskFullError as exc:
            self.note(f"disk full (injected ENOSPC, no mount possible): {exc}")
        finally:
            lib.close()
        time.sleep(15)
        self.ingest(big)


def texts_of(data_dir: Path) -> dict[str, str]:
    """Each id the served generation answers to, and the abstract it answers with."""
    from rag.index.stamp import read_stamp
    from rag.settings import Settings

    stamp = read_stamp(Settings(data_dir=data_dir))
    with sqlite3.connect(data_dir / stamp.catalog) as db:
        texts = {pid: json.loads(record)["abstract"] for pid, record in db.execute("SELECT id, record FROM papers")}
        texts.update({alias: texts.get(kept, "") for alias, kept in db.execute("SELECT alias, paper_id FROM aliases")})
    return texts


def ids_of(data_dir: Path) -> tuple[set[str], int, int]:
    """Every id the served generation answers to (papers and merged duplicates), and its
    chunk and vector counts."""
    from rag.index.chroma import chroma_client
    from rag.index.stamp import read_stamp
    from rag.settings import Settings

    settings = Settings(data_dir=data_dir)
    stamp = read_stamp(settings)
    with sqlite3.connect(data_dir / stamp.catalog) as db:
        ids = {r[0] for r in db.execute("SELECT id FROM papers UNION SELECT alias FROM aliases")}
        chunks = int(db.execute("SELECT count(*) FROM chunks").fetchone()[0])
    vectors = chroma_client(settings, fresh=True).get_collection(stamp.collection).count()
    return ids, chunks, vectors


def clean_build(files: list[Path], data_dir: Path) -> set[str]:
    """The ids a fresh index of these files holds (ids and merges do not depend on the
    embedder, so the tests' fast one is used)."""
    from rag.ingest.pipeline import ingest_files
    from rag.settings import Settings
    from rag.testing.fakes import FakeEmbedder

    ingest_files(Settings(data_dir=data_dir), files, embedder=FakeEmbedder())
    return ids_of(data_dir)[0]
