"""What Slack's endpoints accept before Bolt sees a request. Bolt turns a missing or non-numeric
``X-Slack-Request-Timestamp`` into an exception (a 500), and a signed body whose fields have the
wrong shape ("event": "hi", an integer channel, "actions": "x") into another, with an empty body.
Here the signature is checked over the raw bytes (any bytes: Slack signs bytes, not text), then
the body is read as Bolt will read it and the fields Bolt and the bot use are checked for type,
where they appear: a 401 or a 400 problem ``{code, message}``, like every other error."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from typing import Any
from urllib.parse import parse_qsl

from starlette.responses import JSONResponse

from service.guards import problem

MAX_AGE = 60 * 5  # Slack's own replay window
MAX_DEPTH = 64  # Block Kit nests a few levels; nothing Slack sends comes near this
_STAMP = re.compile(r"[0-9]{1,12}")
_SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")

# Field shapes, where they appear: key -> (allowed types, the shape of a dict or of list items).
_STR, _FLAG = (str, type(None)), (bool, type(None))
_TEXTS = "type subtype text ts thread_ts event_ts message_ts channel_type bot_id event_id team_id " \
         "enterprise_id user_id channel_id api_app_id command trigger_id response_url channel_name " \
         "user_team context_team_id context_enterprise_id action_id value block_id challenge token " \
         "app_installed_team_id id"
Shape = dict[str, tuple[tuple[type, ...], "Shape | None"]]
_ID: Shape = {k: (_STR, None) for k in ("id", "team_id", "enterprise_id", "channel_id", "thread_ts")}
_COMMON: Shape = {k: (_STR, None) for k in _TEXTS.split()} | {
    "is_enterprise_install": (_FLAG, None), "is_ext_shared_channel": (_FLAG, None), "is_bot": (_FLAG, None),
    "enterprise": ((str, dict, type(None)), _ID), "team": ((str, dict, type(None)), _ID),
    "user": ((str, dict, type(None)), _ID), "channel": ((str, dict, type(None)), _ID),
    "container": ((dict, type(None)), None), "view": ((dict, type(None)), None),
    "item": ((dict, type(None)), None), "assistant_thread": ((dict, type(None)), None),
    "function_data": ((dict, type(None)), None)}
_MESSAGE: Shape = dict(_COMMON)
_EVENT: Shape = _COMMON | {"message": ((dict, type(None)), _MESSAGE),
                           "previous_message": ((dict, type(None)), _MESSAGE)}
_LIST = (list, type(None))
_ENVELOPE: Shape = _EVENT | {"event": ((dict, type(None)), _EVENT), "authorizations": (_LIST, _COMMON),
                             "actions": (_LIST, _COMMON), "response_urls": (_LIST, _COMMON)}
for _shape in (_COMMON, _MESSAGE, _EVENT):
    for _key in ("container", "view", "item", "assistant_thread", "function_data"):
        _shape[_key] = ((dict, type(None)), _COMMON)
# What the bot's own handlers need: these must be there, as text.
_REQUIRED = {"event_callback": ("event",), "url_verification": ("challenge",), "command": ("command",),
             "block_actions": ("actions", "user")}
_EVENT_NEEDS = {"app_mention": ("channel", "ts"), "message": ("channel", "ts")}


def _signature_problem(body: bytes, headers: Any, secret: str) -> JSONResponse | None:
    stamp = headers.get("x-slack-request-timestamp", "")
    signature = headers.get("x-slack-signature", "")
    if not _STAMP.fullmatch(stamp) or not signature:
        return problem(401, "invalid_slack_signature", "a Slack request needs a numeric "
                       "X-Slack-Request-Timestamp and an X-Slack-Signature.")
    expected = "v0=" + hmac.new(secret.encode(), b"v0:" + stamp.encode() + b":" + body,
                                hashlib.sha256).hexdigest()
    if abs(int(time.time()) - int(stamp)) > MAX_AGE or not (
            _SIGNATURE.fullmatch(signature) and hmac.compare_digest(expected, signature)):
        return problem(401, "invalid_slack_signature", "the Slack signature does not match this "
                       "body, or the request is over 5 minutes old; check RAG_SLACK__SIGNING_SECRET.")
    return None


def _parsed(body: bytes, content_type: str) -> Any:
    """The body as Bolt will read it (slack_bolt.request.internals.parse_body); bytes or escapes
    that are not UTF-8 are an error, not U+FFFD."""
    text = body.decode("utf-8")
    if content_type == "application/json" or text.startswith("{"):
        return json.loads(text)
    form = dict(parse_qsl(text, keep_blank_values=True, errors="strict"))
    return json.loads(form["payload"]) if "payload" in form else form


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            break
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, level + 1) for child in children)
    return deepest


def shape_error(value: dict[str, Any], shape: Shape, where: str = "") -> str | None:
    """The first field of ``value`` whose type ``shape`` does not allow, said as a path."""
    for key, (types, inner) in shape.items():
        field = value.get(key)
        if not isinstance(field, types):
            allowed = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            return f"{where}{key} must be {allowed}, not {type(field).__name__}"
        items = [field] if isinstance(field, dict) else field if isinstance(field, list) else []
        for n, item in enumerate(items):
            at = f"{where}{key}." if isinstance(field, dict) else f"{where}{key}[{n}]."
            if not isinstance(item, dict):
                return f"{at[:-1]} must be an object"
            if inner is not None and (error := shape_error(item, inner, at)):
                return error
    return None


def payload_error(payload: Any) -> str | None:
    """Why this parsed body is no Slack event, command or interaction we can read, or None."""
    if not isinstance(payload, dict) or not ({"type", "command", "ssl_check"} & payload.keys()):
        return ("not a Slack event, command or interaction (JSON with a 'type', or a form with a "
                "'command' or 'payload')")
    if _depth(payload) > MAX_DEPTH:
        return f"nested deeper than {MAX_DEPTH} levels"
    kind = "command" if "command" in payload else payload.get("type")
    if kind is not None and not isinstance(kind, str):
        return "type must be str"
    shape: Shape = _ENVELOPE if "command" not in payload else {k: (_STR, None) for k in _TEXTS.split()}
    if error := shape_error(payload, shape):
        return error
    missing = [k for k in _REQUIRED.get(kind or "", ()) if payload.get(k) in (None, "")]
    event = payload.get("event") or {}
    missing += [f"event.{k}" for k in _EVENT_NEEDS.get(event.get("type", ""), ()) if not event.get(k)]
    if kind == "block_actions" and not all(isinstance(a.get("action_id"), str) for a in payload["actions"]):
        missing.append("actions[].action_id")
    if kind == "block_actions" and not isinstance(payload["user"], dict):
        return "user must be an object in an interaction"
    return f"{', '.join(missing)} missing" if missing else None


def bolt_problem(status: int, body: str) -> JSONResponse | None:
    """Bolt's own errors ({"error": "unhandled request"} with 404, an empty 500) as problems."""
    if status == 404:
        return problem(404, "unhandled_slack_request", "no handler for this Slack request: the bot "
                       "answers mentions, direct messages, /ask and its feedback buttons.")
    if status >= 500:
        return problem(500, "internal_error", "the Slack request failed on our side; it was logged.")
    return None


def slack_request_problem(body: bytes, headers: Any, secret: str) -> JSONResponse | None:
    """None for a signed, readable Slack request; else the problem to answer with."""
    if bad := _signature_problem(body, headers, secret):
        return bad
    content_type = headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        error = payload_error(_parsed(body, content_type))
    except UnicodeDecodeError:
        error = "the body is not UTF-8"
    except (ValueError, RecursionError):
        error = "the body is not valid JSON or form data"
    if error:
        return problem(400, "invalid_slack_request", f"a signed Slack request that cannot be read: {error}.")
    return None
