"""The per-caller rate limit means what its setting says: at most N requests in any 60 s
(``limits``' moving window, issue 20 point 5). The hand-written token bucket it replaces let a
caller who spent the minute's budget in a burst go on at one request per 60/N s."""

from __future__ import annotations

import time

import pytest

from service.guards import ApiError, RateLimiter


def test_a_spent_budget_is_not_refilled_within_the_minute():
    limiter = RateLimiter(per_minute=60)
    for _ in range(60):
        limiter.check("client:a")
    with pytest.raises(ApiError) as refused:
        limiter.check("client:a")
    assert refused.value.status == 429 and refused.value.retry_after >= 58
    time.sleep(1.2)  # a token bucket refills one request a second at 60/minute
    with pytest.raises(ApiError) as still:
        limiter.check("client:a")
    assert still.value.code == "rate_limited" and "retry in" in still.value.message
    limiter.check("client:b")  # callers are counted apart
