"""What Slack's endpoints accept before Bolt sees a request. Bolt turns a missing or non-numeric
``X-Slack-Request-Timestamp`` into an exception (a 500), and a signed body it cannot parse into
another; here they are a 401 and a 400 problem, like every other error of the service."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qsl

from slack_sdk.signature import SignatureVerifier
from starlette.responses import JSONResponse

from service.guards import problem

MAX_AGE = 60 * 5  # Slack's own replay window


def _signature_problem(body: bytes, headers: Any, secret: str) -> JSONResponse | None:
    stamp = headers.get("x-slack-request-timestamp", "")
    signature = headers.get("x-slack-signature", "")
    if not stamp.isdigit() or not signature:
        return problem(401, "invalid_slack_signature", "a Slack request needs a numeric "
                       "X-Slack-Request-Timestamp and an X-Slack-Signature.")
    if abs(time.time() - int(stamp)) > MAX_AGE or not SignatureVerifier(secret).is_valid(
            body, stamp, signature):
        return problem(401, "invalid_slack_signature", "the Slack signature does not match this "
                       "body, or the request is over 5 minutes old; check RAG_SLACK__SIGNING_SECRET.")
    return None


def _parsed(text: str, content_type: str) -> Any:
    """The body as Bolt will read it (slack_bolt.request.internals.parse_body)."""
    if content_type == "application/json" or text.startswith("{"):
        return json.loads(text)
    form = dict(parse_qsl(text, keep_blank_values=True))
    return json.loads(form["payload"]) if "payload" in form else form


def slack_request_problem(body: bytes, headers: Any, secret: str) -> JSONResponse | None:
    """None for a signed, readable Slack request; else the problem to answer with."""
    if bad := _signature_problem(body, headers, secret):
        return bad
    content_type = headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        parsed = _parsed(body.decode("utf-8"), content_type)
    except (UnicodeDecodeError, ValueError):
        parsed = None
    if not isinstance(parsed, dict) or not ({"type", "command", "ssl_check"} & parsed.keys()):
        return problem(400, "invalid_slack_request", "the body is not a Slack event, command or "
                       "interaction (JSON with a 'type', or a form with a 'command' or 'payload').")
    return None
