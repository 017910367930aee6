# abstract-rag: question answering over paper abstracts, offline (embedder and tokenizers ship
# inside the installed packages; nothing is downloaded at run time).
#   docker build -t abstract-rag .
#   docker run --rm -p 8000:8000 -e RAG_SERVICE__API_KEYS='["secret"]' abstract-rag
#   docker run --rm -v rag-data:/home/app/.rag-data abstract-rag   # keep the index between runs
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

WORKDIR /app

# Layer 1, dependencies only: the build requirements and [project].dependencies, read from
# pyproject.toml with tomllib (stdlib in 3.11). This layer is rebuilt only when pyproject.toml
# changes, not when the source does.
COPY pyproject.toml ./
RUN python -c "import tomllib; d = tomllib.load(open('pyproject.toml', 'rb')); \
print('\n'.join(d['build-system']['requires'] + d['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# Layer 2, the project. README.m[d]: the glob keeps the build working if README.md is absent
# (setuptools only warns then); pyproject.toml is always there, so the COPY never matches nothing.
COPY README.m[d] pyproject.toml ./
COPY rag/ rag/
COPY service/ service/
COPY eval/ eval/
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
ENV RAG_CORPUS_DIR=/app/data \
    RAG_PROMPTS_DIR=/app/prompts \
    RAG_DATA_DIR=/home/app/.rag-data

# Run as an unprivileged user; the index lives in its home (created here, so a named volume
# mounted there starts out owned by that user).
RUN useradd --create-home --uid 10001 --user-group app \
    && mkdir -p /home/app/.rag-data \
    && chown app:app /home/app/.rag-data
USER app

# For the HTTP service (not written yet).
EXPOSE 8000

# Index (incremental; instant when the volume already holds the index), then serve on all
# interfaces. `rag serve` refuses a public address without API keys, so pass some:
#   docker run -p 8000:8000 -e RAG_SERVICE__API_KEYS='["a-long-secret"]' abstract-rag
CMD ["sh", "-c", "rag ingest && exec rag serve --host 0.0.0.0 --port 8000"]
