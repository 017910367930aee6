"""Opening Chroma: embedded (``PersistentClient``, files in the data directory) or a server
(``HttpClient`` to ``chroma run``), chosen by ``RAG_STORE__MODE``, with every failure said as a
StoreError that tells what to do."""

from __future__ import annotations

import logging
import threading
import weakref
from typing import TYPE_CHECKING, Any

from rag.errors import StoreError
from rag.index.diskspace import DiskFullError, says_disk_full

if TYPE_CHECKING:
    from rag.settings import Settings

_OPEN_LOCK = threading.Lock()
log = logging.getLogger(__name__)


def check_server_version(server: str, client: str) -> None:
    """The Chroma server must speak the client's API: the same major version."""
    if server.split(".")[0] != client.split(".")[0]:
        raise StoreError(f"the Chroma server runs version {server}, but this client is {client}; "
                         f"run a {client.split('.')[0]}.x server (`chroma run` from the same "
                         "chromadb package) or install a matching chromadb.")


def _import_chromadb() -> Any:
    """``import chromadb`` without the import-time signature checks of its ``@override``
    decorators (the ``overrides`` package compares every overriding method's signature with its
    base class's as each class is defined: a development lint that costs about 0.35 s of every
    cold start). The decorators still mark the methods, so ``EnforceOverrides`` works; the real
    functions are put back once chromadb and the API module of the chosen mode are loaded."""
    import sys

    if "chromadb.api.rust" in sys.modules:
        import chromadb
        return chromadb
    try:
        import overrides
        module = sys.modules["overrides.overrides"]
        saved = overrides.override, overrides.overrides, module.override, module.overrides  # type: ignore[attr-defined]
    except (ImportError, KeyError, AttributeError):  # another overrides layout: import as is
        import chromadb
        return chromadb

    def mark(method: Any = None, **_: Any) -> Any:
        if method is None:
            return mark
        method.__override__ = True
        return method

    overrides.override = overrides.overrides = mark  # type: ignore[assignment]
    module.override = module.overrides = mark  # type: ignore[attr-defined]
    try:
        import chromadb
        import chromadb.api.fastapi  # noqa: F401  the API modules are imported lazily by the client
        import chromadb.api.rust  # noqa: F401
    finally:
        overrides.override, overrides.overrides, module.override, module.overrides = saved  # type: ignore[attr-defined]
    return chromadb


# Embedded systems a fresh open replaced. Readers opened before may still use one (requests in
# flight on the previous generation), so nothing here stops them; a process that knows none is
# in use any more (the test suite, between modules) can stop them with ``stop_embedded``. Held
# weakly: a long-running service that reopens after every ingest must not keep them alive.
RETIRED: weakref.WeakSet[Any] = weakref.WeakSet()


def stop_embedded() -> int:
    """Stop every embedded Chroma system this process opened (cached or retired), closing their
    files; clients opened before must not be used afterwards. Returns how many were stopped."""
    from chromadb.api.shared_system_client import SharedSystemClient

    with _OPEN_LOCK:
        cached = SharedSystemClient._identifier_to_system
        embedded = [k for k, system in cached.items() if system.settings.is_persistent]
        systems = [cached.pop(k) for k in embedded] + list(RETIRED)
        for k in embedded:
            SharedSystemClient._identifier_to_refcount.pop(k, None)
        RETIRED.clear()
    for system in systems:
        try:
            system.stop()
        except Exception:  # a system that cannot stop cleanly is dropped all the same
            log.debug("an embedded Chroma system did not stop cleanly", exc_info=True)
    return len(systems)


def chroma_client(settings: Settings, *, fresh: bool = False) -> Any:
    """A Chroma client for the configured mode. ``fresh``: in embedded mode, a client that
    reads the files as they are now (Chroma caches one system per path in the process and
    keeps serving what it loaded; clients opened before keep working on their own state)."""
    chromadb = _import_chromadb()
    from chromadb.api.shared_system_client import SharedSystemClient

    store = settings.store
    options = chromadb.Settings(anonymized_telemetry=False)
    if store.mode == "server":
        where = f"{'https' if store.ssl else 'http'}://{store.host}:{store.port}"
        headers = {"Authorization": f"Bearer {store.token.get_secret_value()}"} if store.token else None
        try:
            client = chromadb.HttpClient(host=store.host, port=store.port, ssl=store.ssl,
                                         headers=headers, settings=options, tenant=store.tenant,
                                         database=store.database)
            version = client.get_version()
        except Exception as exc:
            raise StoreError(f"cannot reach the Chroma server at {where} ({exc}). Start it "
                             f"(`chroma run --path DIR --port {store.port}`) or fix RAG_STORE__HOST/"
                             "PORT/SSL/TOKEN.") from exc
        check_server_version(str(version), chromadb.__version__)
        return client
    path = settings.data_dir / "chroma"
    try:
        path.mkdir(parents=True, exist_ok=True)
        with _OPEN_LOCK:
            if fresh:
                retired = SharedSystemClient._identifier_to_system.pop(str(path), None)
                SharedSystemClient._identifier_to_refcount.pop(str(path), None)
                if retired is not None:
                    RETIRED.add(retired)
            return chromadb.PersistentClient(path=str(path), settings=options)
    except OSError as exc:
        raise StoreError(f"cannot use the data directory {path}: {exc.strerror or exc}. "
                         "Check its permissions or set RAG_DATA_DIR.") from exc
    except Exception as exc:  # chromadb raises its own types for a damaged store
        if says_disk_full(exc):  # not damaged: rebuilding would not help
            raise DiskFullError(f"the vector store in {path} cannot be opened: the disk is full "
                                f"({exc}). Free some space, then try again.") from exc
        raise StoreError(f"the vector store in {path} cannot be opened ({exc}). "
                         "Run `rag ingest --rebuild` to build it again.") from exc


def collection_names(client: Any) -> list[str]:
    return [c if isinstance(c, str) else c.name for c in client.list_collections()]
