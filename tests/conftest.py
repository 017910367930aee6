from __future__ import annotations

import ipaddress
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.settings import BUNDLED_CORPUS, Settings
from rag.testing.fakes import FakeEmbedder
from rag.testing.live import free_port
from tests.support import SUPREMIX_FILE

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


@pytest.fixture(scope="module", autouse=True)
def release_embedded_chroma():  # type: ignore[no-untyped-def]
    """After each test module, stop the embedded Chroma systems it opened: Chroma keeps one per
    data directory for the life of the process, and a whole run of them exhausts the file
    descriptors that select()-based clients (Slack's socket mode) can use."""
    yield
    from rag.index.chroma import stop_embedded

    stop_embedded()


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
    """The bundled corpus indexed once with the real offline embedder (about a minute, half of
    it the sentence vectors)."""
    from rag.index.library import open_library
    from rag.ingest.pipeline import ingest

    settings = Settings(data_dir=tmp_path_factory.mktemp("real") / "index")
    lib = open_library(settings)
    try:
        ingest(lib, [settings.corpus_dir])
    finally:
        lib.close()
    return settings


@pytest.fixture(scope="module")
def library_files() -> list[Path]:
    """What the module's ``library`` holds; a test module overrides this fixture to change it."""
    return [SUPREMIX_FILE]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, library_files: list[Path]):  # type: ignore[no-untyped-def]
    """A library of ``library_files`` with the fake embedder, built once per test module."""
    from rag.index.library import open_library
    from rag.ingest.pipeline import ingest

    lib = open_library(Settings(data_dir=tmp_path_factory.mktemp("library") / "index"),
                       embedder=FakeEmbedder())
    ingest(lib, library_files)
    yield lib
    lib.close()


LLAMA_START_SECONDS = {"smollm2": 180, "qwen": 300}


@pytest.fixture(scope="module")
def llama_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The /v1 URL of a llama.cpp server on loopback running the local model the test names:
    ``pytest.mark.parametrize("llama_url", ["qwen"], indirect=True)``."""
    from rag.llm.local import local_model, server_command

    name = request.param
    port = free_port()
    log = (tmp_path_factory.mktemp(name) / "server.log").open("w")
    model = local_model(name, tmp_path_factory.mktemp("models"))
    proc = subprocess.Popen(server_command(model, port=port), stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_serving(url, proc, LLAMA_START_SECONDS[name], log.name)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def _wait_until_serving(url: str, proc: subprocess.Popen, seconds: float, log: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"llama.cpp server exited; see {log}"
        try:
            urllib.request.urlopen(f"{url}/models", timeout=2)
            return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"llama.cpp server did not start within {seconds:.0f} s")
