"""One writer across machines: a lease file in the shared snapshot folder.

With ``RAG_STORE__SNAPSHOT_DIR`` set, every ingest first takes ``writer.lease`` there: a file
made with ``link()`` (atomic, NFS included), so of two machines only one gets it; the other is
refused with a message that names the holder. The holder renews it (touches it) while it works;
a lease nobody renewed for ``TTL`` seconds belongs to a machine that died, and the next writer
moves it aside (``rename``: again only one wins) and takes its place. Ages are measured with
the folder's own clock (file times), so machines whose clocks disagree still agree on them.
Before publishing, the holder checks that the lease is still its own."""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rag.errors import StoreError

if TYPE_CHECKING:
    from rag.settings import Settings

log = logging.getLogger(__name__)
LEASE_FILE = "writer.lease"
TTL = 120.0
RENEW = 10.0


class LeaseHeld(StoreError):
    """Another machine holds the shared folder's writer lease (or took it over)."""


@dataclass
class Lease:
    path: Path
    owner: str
    stop: threading.Event = field(default_factory=threading.Event)

    def holder(self) -> dict:
        try:
            return json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def check(self) -> None:
        """Raise unless the lease is still this writer's (say so before publishing)."""
        if self.holder().get("owner") != self.owner:
            raise LeaseHeld(f"this machine's writer lease in {self.path.parent} was taken over by "
                            f"{_who(self.holder())} (it was not renewed for {TTL:.0f} s); nothing was "
                            "published. Run `rag ingest` again when that ingest has finished.")


def _who(holder: dict) -> str:
    since = holder.get("since")
    when = time.strftime("%H:%M:%S", time.localtime(since)) if isinstance(since, int | float) else "?"
    return f"{holder.get('host', '?')} (pid {holder.get('pid', '?')}, since {when})"


def _create(mine: Path, path: Path) -> None:
    """Make ``path`` hold ``mine``'s content, failing with FileExistsError if it exists: a hard
    link where the storage has them, else an exclusive create."""
    try:
        os.link(mine, path)
    except FileExistsError:
        raise
    except OSError:  # storage without hard links (some synced or object-store folders)
        handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        with os.fdopen(handle, "wb") as out:
            out.write(mine.read_bytes())


def acquire(folder: Path) -> Lease:
    folder.mkdir(parents=True, exist_ok=True)
    token = uuid.uuid4().hex[:12]
    owner = f"{socket.gethostname()}:{os.getpid()}:{token}"
    mine = folder / f".lease-{token}.tmp"
    mine.write_text(json.dumps({"owner": owner, "host": socket.gethostname(), "pid": os.getpid(),
                                "since": time.time()}), encoding="utf-8")
    lease = Lease(folder / LEASE_FILE, owner)
    try:
        for _ in range(3):
            try:
                _create(mine, lease.path)
                return lease
            except FileExistsError:
                pass
            try:
                age = mine.stat().st_mtime - lease.path.stat().st_mtime
            except FileNotFoundError:
                continue  # released just now: try again
            if age < TTL:
                raise LeaseHeld(f"another machine is ingesting into the shared index in {folder}: "
                                f"{_who(lease.holder())}. Wait for it to finish, then run `rag ingest` "
                                f"again (one writer at a time keeps every paper). If it died, its lease "
                                f"is taken over {TTL - age:.0f} s from now.")
            log.warning("taking over a writer lease not renewed for %.0f s: %s", age, _who(lease.holder()))
            with suppress(FileNotFoundError):  # only one machine wins this rename
                os.rename(lease.path, folder / f".lease-stale-{token}")
                (folder / f".lease-stale-{token}").unlink()
        raise LeaseHeld(f"could not take the writer lease in {folder}; run `rag ingest` again.")
    finally:
        mine.unlink(missing_ok=True)


def _renew(lease: Lease) -> None:
    while not lease.stop.wait(RENEW):
        if lease.holder().get("owner") != lease.owner:
            log.warning("the writer lease was taken over: %s", _who(lease.holder()))
            return
        with suppress(OSError):
            os.utime(lease.path)


def release(lease: Lease) -> None:
    lease.stop.set()
    if lease.holder().get("owner") == lease.owner:
        lease.path.unlink(missing_ok=True)


@contextmanager
def shared_lease(settings: Settings) -> Iterator[Lease | None]:
    """The shared folder's writer lease, held for the block (None without a shared folder)."""
    folder = settings.store.snapshot_dir
    if folder is None:
        yield None
        return
    try:
        lease = acquire(folder)
    except LeaseHeld:
        raise
    except OSError as exc:
        raise StoreError(f"cannot take the writer lease in {folder} ({exc}). Check that "
                         "RAG_STORE__SNAPSHOT_DIR is a writable folder.") from exc
    renewer = threading.Thread(target=_renew, args=(lease,), daemon=True, name="lease-renew")
    renewer.start()
    try:
        yield lease
    finally:
        release(lease)
