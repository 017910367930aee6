from __future__ import annotations

import ipaddress
import shutil
import socket
from pathlib import Path

import pytest

from rag.settings import BUNDLED_CORPUS, Settings
from tests.fakes import FakeEmbedder

SEED_FILES = sorted(BUNDLED_CORPUS.glob("0*.txt"))


def _is_loopback(address: object) -> bool:
    if isinstance(address, tuple) and address:
        host = str(address[0])
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(host.split("%")[0]).is_loopback
        except ValueError:
            return False
    return True  # AF_UNIX paths


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection outside loopback fails the test: nothing may download at run time."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded(method):  # type: ignore[no-untyped-def]
        def connect(self, address):  # type: ignore[no-untyped-def]
            if not _is_loopback(address):
                raise AssertionError(f"network access attempted: {address!r}")
            return method(self, address)
        return connect

    monkeypatch.setattr(socket.socket, "connect", guarded(real_connect))
    monkeypatch.setattr(socket.socket, "connect_ex", guarded(real_connect_ex))


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "index", corpus_dir=BUNDLED_CORPUS)


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    """A writable copy of the bundled corpus."""
    target = tmp_path / "corpus"
    target.mkdir()
    for f in SEED_FILES:
        shutil.copy(f, target / f.name)
    return target


@pytest.fixture(scope="session")
def real_index(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The bundled corpus indexed once with the real offline embedder (about 25 s)."""
    from rag.index.library import open_library
    from rag.ingest.pipeline import ingest

    settings = Settings(data_dir=tmp_path_factory.mktemp("real") / "index")
    lib = open_library(settings)
    try:
        ingest(lib, [settings.corpus_dir])
    finally:
        lib.close()
    return settings


def free_port() -> int:
    """A free TCP port on loopback, for servers the tests start."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
