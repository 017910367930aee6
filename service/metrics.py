"""Prometheus metrics: request counts and latency, answers abstained, LLM fallbacks."""

from prometheus_client import Counter, Histogram

from rag.types import Answer, Route

REQUESTS = Counter("rag_http_requests_total", "HTTP requests", ["method", "route", "status"])
LATENCY = Histogram("rag_http_request_seconds", "HTTP request latency", ["route"],
                    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
ANSWERS = Counter("rag_answers_total", "answers given", ["abstained"])
FALLBACKS = Counter("rag_llm_fallbacks_total", "answers given by the offline answerer because the "
                    "LLM failed or its answer could not be used")


def count_answer(result: Answer) -> None:
    ANSWERS.labels(str(result.abstained).lower()).inc()
    if result.route is Route.FALLBACK:
        FALLBACKS.inc()
