"""Hand-written code against the well-kept library that could replace it, measured in one run
(issue 20, point 5): speed and behaviour, printed as ratios.

    python benchmarks/libraries.py            # both rows
    python benchmarks/libraries.py --only minhash|ratelimit

MinHash/LSH dedupe (rag/index/dedupe.py) against ``datasketch``: signatures of the bundled
corpus's abstracts (96 permutations, the same 32 bands of 3 rows, the same shingles), the rate at
which pairs of known Jaccard similarity become LSH candidates, and import time.

Rate limiter against ``limits``: the token bucket the service used (kept here as the baseline,
deleted from the service) and ``limits``' moving window and sliding window counter in memory, on
a simulated clock: a steady client over its rate, a burst, the Retry-After it is told, the state
left behind by 10,000 callers; and checks per second with 1 and 10,000 callers.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.index.dedupe import BANDS, ROWS, band_keys, shingle_hashes  # noqa: E402
from rag.ingest.formats import input_files, read_file  # noqa: E402
from rag.settings import BUNDLED_CORPUS  # noqa: E402


# ---------------------------------------------------------------- MinHash / LSH
class DatasketchBands:
    """The same band keys, from datasketch's MinHash signature (affine32 scheme)."""

    def __init__(self) -> None:
        from datasketch import MinHash

        self.MinHash = MinHash
        self.permutations = MinHash(num_perm=BANDS * ROWS, seed=1, scheme="affine32").permutations

    def keys(self, shingles: set[int]) -> list[int]:
        m = self.MinHash(num_perm=BANDS * ROWS, hashfunc=int, permutations=self.permutations,
                         scheme="affine32")
        m.update_batch(list(shingles))
        out = []
        for band in range(BANDS):
            rows = np.asarray(m.hashvalues[band * ROWS : (band + 1) * ROWS], dtype=np.uint64).tobytes()
            digest = hashlib.blake2b(band.to_bytes(1, "big") + rows, digest_size=8).digest()
            out.append(int.from_bytes(digest, "big", signed=True))
        return out


def _texts() -> list[str]:
    return [p.text for f in input_files(BUNDLED_CORPUS) for p in read_file(f)
            if hasattr(p, "text") and p.text]


def _pair(words: list[str], jaccard: float, rng: random.Random) -> tuple[set[int], set[int]]:
    """Two shingle sets whose Jaccard similarity is close to ``jaccard``: the same words with
    a share of the 5-word windows changed in the second."""
    a = shingle_hashes(" ".join(words))
    keep = 2 * jaccard / (1 + jaccard)  # |A & B| / |A| when |A| == |B|
    b = {h if rng.random() < keep else rng.getrandbits(32) for h in a}
    return a, b


def minhash_row(repeats: int = 3) -> None:
    shingles = [shingle_hashes(t) for t in _texts()]
    started = time.perf_counter()
    lib = DatasketchBands()
    first_build = time.perf_counter() - started
    timings: dict[str, list[float]] = {"hand-written": [], "datasketch": []}
    for _ in range(repeats):  # interleaved, so both see the same machine
        for name, fn in (("hand-written", band_keys), ("datasketch", lib.keys)):
            t = time.perf_counter()
            for s in shingles:
                fn(s)
            timings[name].append((time.perf_counter() - t) / len(shingles) * 1e6)
    ours, theirs = (statistics.median(timings[k]) for k in ("hand-written", "datasketch"))
    print(f"\n## MinHash/LSH: {len(shingles)} abstracts, {BANDS} bands x {ROWS} rows")
    print(f"signature + band keys per abstract: hand-written {ours:.0f} us, datasketch {theirs:.0f} us "
          f"(datasketch / hand-written = {theirs / ours:.2f}); datasketch's permutations "
          f"{first_build * 1000:.0f} ms once")
    rng = random.Random(7)
    words = [w for t in _texts()[:200] for w in t.split()]
    print("| Jaccard | pairs | candidates, hand-written | candidates, datasketch | theory 1-(1-J^3)^32 |")
    print("|---|---|---|---|---|")
    for jaccard in (0.1, 0.3, 0.5, 0.56, 0.7, 0.9):
        hits = {"h": 0, "d": 0}
        pairs = 300
        for _ in range(pairs):
            start = rng.randrange(len(words) - 160)
            a, b = _pair(words[start : start + 160], jaccard, rng)
            hits["h"] += bool(set(band_keys(a)) & set(band_keys(b)))
            hits["d"] += bool(set(lib.keys(a)) & set(lib.keys(b)))
        theory = 1 - (1 - jaccard**ROWS) ** BANDS
        print(f"| {jaccard:.2f} | {pairs} | {hits['h'] / pairs:.3f} | {hits['d'] / pairs:.3f} | {theory:.3f} |")
    base = _import_seconds("import numpy")
    print(f"import: rag.index.dedupe {_import_seconds('import rag.index.dedupe') - base:.2f} s, "
          f"datasketch {_import_seconds('import datasketch') - base:.2f} s over numpy ({base:.2f} s); "
          f"datasketch pulls in scipy ({_site_size('scipy'):.0f} MB installed)")


def _import_seconds(statement: str) -> float:
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", statement], check=True, cwd=ROOT)
        runs.append(time.perf_counter() - started)
    return min(runs)


def _site_size(package: str) -> float:
    module = __import__(package)
    folder = Path(module.__file__).parent
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20


# ---------------------------------------------------------------- rate limiter
class TokenBucket:
    """The service's hand-written limiter until it was replaced (the baseline)."""

    def __init__(self, per_minute: int, clock=time.monotonic) -> None:  # type: ignore[no-untyped-def]
        self.rate, self.capacity, self.clock = per_minute / 60.0, float(per_minute), clock
        self.buckets: dict[str, tuple[float, float]] = {}
        self.lock = threading.Lock()

    def check(self, caller: str) -> int | None:
        """None when allowed, else the seconds to wait."""
        now = self.clock()
        with self.lock:
            tokens, last = self.buckets.get(caller, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            if tokens < 1.0:
                self.buckets[caller] = (tokens, now)
                return math.ceil((1.0 - tokens) / self.rate)
            self.buckets[caller] = (tokens - 1.0, now)
            return None

    def state(self) -> str:
        return f"{len(self.buckets)} keys"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def time(self) -> float:
        return self.now


class LimitsLimiter:
    """``limits`` with in-memory storage, on the simulated clock."""

    def __init__(self, per_minute: int, strategy: str, clock: Clock) -> None:
        import limits.storage.memory
        import limits.strategies
        from limits import RateLimitItemPerMinute

        limits.storage.memory.time = clock  # type: ignore[attr-defined]
        limits.strategies.time = clock  # type: ignore[attr-defined]
        self.storage = limits.storage.MemoryStorage()
        self.limiter = {"moving window": limits.strategies.MovingWindowRateLimiter,
                        "sliding window counter": limits.strategies.SlidingWindowCounterRateLimiter}[
            strategy](self.storage)
        self.item, self.clock = RateLimitItemPerMinute(per_minute), clock

    def check(self, caller: str) -> int | None:
        if self.limiter.hit(self.item, caller):
            return None
        return max(1, math.ceil(self.limiter.get_window_stats(self.item, caller).reset_time - self.clock.time()))

    def state(self) -> str:
        """Keys still held once the storage's own expiry thread has run (it runs 10 ms after a hit)."""
        self.limiter.hit(self.item, "wake-the-expiry-thread")
        time.sleep(0.2)
        keys = len(self.storage.events) + len(self.storage.storage) - 1
        live = sum(1 for v in self.storage.events.values() if v) + len(self.storage.storage) - 1
        return f"{keys} keys ({live} with data)"  # type: ignore[return-value]


def _behaviour(make) -> dict[str, object]:  # type: ignore[no-untyped-def]
    clock = Clock()
    limiter = make(clock)
    per_minute = []
    for _minute in range(3):  # a client at 4 requests/s, twice its 120/minute
        allowed = 0
        for _tick in range(240):
            clock.now += 0.25
            allowed += limiter.check("steady") is None
        per_minute.append(allowed)
    clock.now += 3600
    burst = [limiter.check("burst") for _ in range(200)]
    first_refusal = next(wait for wait in burst if wait is not None)
    clock.now += 1.0
    after_1s = sum(limiter.check("burst") is None for _ in range(10))
    for i in range(10_000):
        limiter.check(f"caller-{i}")
    clock.now += 3600
    return {"per minute": per_minute, "burst allowed": sum(w is None for w in burst),
            "retry-after": first_refusal, "allowed 1 s later": after_1s, "state": limiter.state()}


def _speed(make, callers: int, checks: int = 50_000) -> float:  # type: ignore[no-untyped-def]
    limiter = make(Clock()) if callers else None
    real = time.perf_counter
    started = real()
    for i in range(checks):
        limiter.check(f"c{i % callers}")
    return checks / (real() - started)


def ratelimit_row() -> None:
    makers = {
        "hand-written token bucket": lambda clock: TokenBucket(120, clock.time),
        "limits moving window": lambda clock: LimitsLimiter(120, "moving window", clock),
        "limits sliding window counter": lambda clock: LimitsLimiter(120, "sliding window counter", clock),
    }
    print("\n## Rate limiter: 120 requests/minute per caller (simulated clock)")
    print("| limiter | allowed per minute at 4/s (3 min) | burst of 200 allowed | Retry-After | allowed 1 s "
          "later | state kept for 10,000 idle callers | checks/s, 1 caller | checks/s, 10,000 callers |")
    print("|---|---|---|---|---|---|---|---|")
    speeds = {}
    for name, make in makers.items():
        b = _behaviour(make)
        speeds[name] = (_speed(make, 1), _speed(make, 10_000))
        print(f"| {name} | {b['per minute']} | {b['burst allowed']} | {b['retry-after']} s | "
              f"{b['allowed 1 s later']} | {b['state']} | {speeds[name][0]:,.0f} | {speeds[name][1]:,.0f} |")
    base = speeds["hand-written token bucket"]
    for name in list(makers)[1:]:
        print(f"{name} / hand-written, checks per second: {speeds[name][0] / base[0]:.2f} (1 caller), "
              f"{speeds[name][1] / base[1]:.2f} (10,000 callers)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=["minhash", "ratelimit"])
    args = parser.parse_args()
    if args.only in (None, "minhash"):
        minhash_row()
    if args.only in (None, "ratelimit"):
        ratelimit_row()


if __name__ == "__main__":
    main()
