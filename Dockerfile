# abstract-rag: question answering over paper abstracts, offline (embedder and tokenizers ship
# inside the installed packages; nothing is downloaded at run time).
#   docker build -t abstract-rag .
#   docker run --rm -p 8000:8000 -e RAG_SERVICE__API_KEYS='["secret"]' abstract-rag
#   docker run --rm -v rag-data:/home/app/.rag-data abstract-rag   # keep the index between runs
# Build arguments:
#   BASE    any Debian-like image with python3 (3.11+) and its venv module; the default is
#           Docker Hub's. scripts/container-check builds on a debootstrapped Debian bookworm.
#   EXTRAS  optional extras of pyproject.toml to install too, comma-separated (e.g. local-llm).
# Wheelhouse: when wheels/ in the build context holds *.whl files, every dependency is installed
# from them alone (pip --no-index), for builds that cannot reach a package index; when it holds
# none (as in a fresh clone), pip uses the index as usual. scripts/container-check fills it.
ARG BASE=python:3.11-slim

# Stage 1 installs the dependencies into a virtual environment (/opt/venv). It is a separate
# stage so that the wheelhouse and any compilers never reach the final image.
FROM ${BASE} AS deps
ARG EXTRAS=
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_OPENMP=OFF"
# Only these two inputs: this stage is rebuilt when pyproject.toml or the wheelhouse changes,
# not when the source does.
COPY pyproject.toml /tmp/build/
COPY wheels/ /tmp/wheels/
# The requirements are the build requirements, [project].dependencies and the asked extras,
# read with tomllib (stdlib in 3.11). llama-cpp-python (local-llm) has no binary wheel on PyPI:
# with no wheel of it in wheels/, it is compiled here, so the compilers come in for this stage.
# CMAKE_ARGS above keep that build portable (no -march=native, no libgomp at run time).
RUN cd /tmp/build \
    && python3 -m venv /opt/venv \
    && EXTRAS="$EXTRAS" python3 -c "import os, tomllib; d = tomllib.load(open('pyproject.toml', 'rb')); \
extras = [e for e in os.environ['EXTRAS'].split(',') if e]; \
print('\n'.join(d['build-system']['requires'] + d['project']['dependencies'] \
+ [r for e in extras for r in d['project']['optional-dependencies'][e]]))" > requirements.txt \
    && if ls /tmp/wheels/*.whl >/dev/null 2>&1; then \
         set -- --no-index --find-links /tmp/wheels; \
       elif grep -q '^llama-cpp-python' requirements.txt; then \
         apt-get update && apt-get install -y --no-install-recommends build-essential cmake; \
       fi \
    && /opt/venv/bin/pip install "$@" -r requirements.txt

FROM ${BASE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PATH=/opt/venv/bin:$PATH

# Layer 1, the dependencies (the whole virtual environment from stage 1).
COPY --from=deps /opt/venv /opt/venv

WORKDIR /app
# Layer 2, the project. README.m[d]: the glob keeps the build working if README.md is absent
# (setuptools only warns then); pyproject.toml is always there, so the COPY never matches nothing.
COPY README.m[d] pyproject.toml ./
COPY rag/ rag/
COPY service/ service/
COPY eval/ eval/
COPY cli/ cli/
COPY prompts/ prompts/
COPY data/ data/
# A regular (non-editable) install: the wheel carries rag/assets/* (package data declared in
# pyproject.toml). --no-build-isolation uses the setuptools installed in layer 1 (no fetch).
RUN pip install --no-deps --no-build-isolation . && rm -rf build *.egg-info

# The bundled corpus: rag/settings.py looks for it at PROJECT_ROOT / "data", PROJECT_ROOT being
# the parent of the installed `rag` package. With a regular install that is site-packages/data,
# which does not exist, so we point at the copy in /app explicitly. (The alternative,
# `pip install -e .`, would make PROJECT_ROOT=/app, but it ties the installed package to the
# source tree; an explicit setting is visible and easy to override, e.g. with a mounted corpus.)
# Note: eval/datasets and prompts/ are not package data either; they live in /app only.
# The service listens on all interfaces, port 8000 (both overridable, e.g. RAG_SERVICE__PORT
# for a container on the host's network).
ENV RAG_CORPUS_DIR=/app/data \
    RAG_PROMPTS_DIR=/app/prompts \
    RAG_DATA_DIR=/home/app/.rag-data \
    RAG_SERVICE__HOST=0.0.0.0 \
    RAG_SERVICE__PORT=8000

# Run as an unprivileged user; the index lives in its home (created here, so a named volume
# mounted there starts out owned by that user).
RUN useradd --create-home --uid 10001 --user-group app \
    && mkdir -p /home/app/.rag-data \
    && chown app:app /home/app/.rag-data
USER app

EXPOSE 8000

# Index (incremental; instant when the volume already holds the index), then serve. `rag serve`
# refuses a public address without API keys, so pass some:
#   docker run -p 8000:8000 -e RAG_SERVICE__API_KEYS='["a-long-secret"]' abstract-rag
# Other commands run in the same image: `chroma run ...` (the Chroma server), `rag slack`,
# `rag local-llm` (built with EXTRAS=local-llm); see compose.yaml.
CMD ["sh", "-c", "rag ingest && exec rag serve"]
