"""The Slack bot (Bolt): @mentions in channels, direct messages and ``/ask``, answered in the
question's thread with sources and 👍/👎 buttons. The same ``answer()`` as every other channel.

Ack at once, answer afterwards: a "Searching the abstracts…" placeholder is posted, the answer is
computed on a small thread pool and replaces it (``chat.update``). A thread is a conversation
(``slack:<channel>:<thread_ts>``). Slack's retries and duplicate events never answer twice.
Two ways to run: ``mount_slack(app, settings)`` (HTTP, ``/slack/*``) or ``run_socket_mode``."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request, Response
from slack_bolt import App, BoltRequest, BoltResponse
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from starlette.concurrency import run_in_threadpool

from rag.engine import Engine, answer, build_engine
from rag.errors import InputError, RagError
from rag.index.filters import Filters
from rag.live import LiveEngine
from rag.settings import Settings
from service import slack_blocks as ui
from service.conversations import ConversationLog
from service.slack_blocks import ChannelSettings, SlackFilters, SlackStore, user_hash
from service.slack_guard import bolt_problem, slack_request_problem
from service.slack_settings import SlackSettings, load_slack_settings

log = logging.getLogger(__name__)
PATHS = ("/slack/events", "/slack/commands", "/slack/actions")


def to_filters(filters: SlackFilters) -> Filters:
    return Filters.parse(author=filters.author, year=filters.year, venue=filters.venue,
                         source=filters.source)


class SlackBot:
    """The Bolt app and its listeners. ``engine_getter``/``log_getter`` are called per question,
    so the HTTP service can mount the bot before its lifespan builds the engine."""

    def __init__(self, settings: Settings, slack: SlackSettings, engine_getter: Callable[[], Engine],
                 log_getter: Callable[[], ConversationLog], store: SlackStore | None = None) -> None:
        if not slack.bot_token:
            raise RagError("Slack needs a bot token: set RAG_SLACK__BOT_TOKEN (xoxb-…).")
        self.settings, self.slack = settings, slack
        self.engine_getter, self.log_getter = engine_getter, log_getter
        self.collection_getter: Callable[[str], Engine] | None = None  # set by mount_slack
        self.store = store or SlackStore(settings.data_dir / "service.sqlite")
        self.pool = ThreadPoolExecutor(slack.workers, thread_name_prefix="slack-answer")
        self.listeners = ThreadPoolExecutor(8, thread_name_prefix="slack-listener")
        client = WebClient(token=slack.bot_token.get_secret_value(), base_url=slack.api_url)
        secret = slack.signing_secret.get_secret_value() if slack.signing_secret else ""
        self.app = App(client=client, signing_secret=secret, token_verification_enabled=False,
                       listener_executor=self.listeners, name="abstract-rag",
                       logger=logging.getLogger(f"{__name__}.bolt"))
        self.app.use(self._once)
        self.app.event("app_mention")(self._on_mention)
        self.app.event("message")(self._on_message)
        self.app.command("/ask")(self._on_command)
        self.app.action("feedback_up")(self._on_feedback)
        self.app.action("feedback_down")(self._on_feedback)

    def close(self) -> None:
        """Finish the questions in hand (they need the engine), then release everything."""
        self.pool.shutdown(wait=True)
        self.listeners.shutdown(wait=True)
        self.store.close()

    # ---- listeners ----------------------------------------------------------------------------

    def _once(self, req: BoltRequest, next_: Callable[[], BoltResponse]) -> BoltResponse:
        """Slack retries an event it thinks we missed: ack those, and never handle an event twice."""
        # Socket Mode envelopes carry retry_attempt 0 on the first delivery (Bolt passes it on as
        # this header): only 1 and up are retries.
        retry = (req.headers.get("x-slack-retry-num") or ["0"])[0]
        if self.slack.ignore_retries and retry not in ("", "0"):
            log.info("slack: ignoring retry %s of %s", retry, req.body.get("event_id"))
            return BoltResponse(status=200, body="", headers={"x-slack-no-retry": "1"})
        event_id = req.body.get("event_id")
        if event_id and not self.store.claim(f"event:{event_id}"):
            log.info("slack: event %s already handled", event_id)
            return BoltResponse(status=200, body="")
        return next_()

    def _on_mention(self, event: dict[str, Any], client: WebClient) -> None:
        channel = event["channel"]
        conf = self.slack.for_channel(channel, direct=event.get("channel_type") == "im")
        if conf is None:
            self._call(client.chat_postEphemeral, channel=channel, user=event.get("user", ""),
                       thread_ts=event.get("thread_ts"), text=ui.NOT_HERE)
            return
        self._start(client, event, conf)

    def _on_message(self, event: dict[str, Any], client: WebClient, context: dict[str, Any]) -> None:
        if event.get("bot_id") or event.get("subtype") not in (None, "thread_broadcast"):
            return  # edits, joins, bots (ourselves included)
        channel, direct = event["channel"], event.get("channel_type") == "im"
        conf = self.slack.for_channel(channel, direct=direct)
        if conf is None or (not direct and ui.mentions(event.get("text"), context.get("bot_user_id"))):
            return  # not answered here, or the app_mention event answers it
        thread = event.get("thread_ts")
        in_thread = bool(thread) and thread != event["ts"]
        if not direct and (conf.require_mention or (
                in_thread and not self.store.has_conversation(f"slack:{channel}:{thread}"))):
            return  # without a mention: top-level questions, and follow-ups in our threads
        self._start(client, event, conf)

    def _on_command(self, ack: Callable[..., None], command: dict[str, Any], client: WebClient,
                    respond: Callable[..., None]) -> None:
        question, channel = ui.plain_question(command.get("text")), command.get("channel_id", "")
        direct = channel.startswith("D") or command.get("channel_name") == "directmessage"
        conf = self.slack.for_channel(channel, direct=direct)
        if not question or conf is None:
            ack(response_type="ephemeral", text=ui.USAGE if conf else ui.NOT_HERE)
            return
        ack(response_type="ephemeral", text=f"{ui.SEARCHING} _{ui.escape(ui.clip(question, 200))}_")
        conversation = f"slack:{channel}:ask:{command.get('trigger_id') or uuid.uuid4().hex}"
        self.pool.submit(self._guarded, self._answer_ephemeral, client, respond, channel,
                         command.get("user_id", ""), question, conversation, conf)

    def _on_feedback(self, ack: Callable[..., None], body: dict[str, Any], action: dict[str, Any],
                     client: WebClient) -> None:
        ack()
        vote = "up" if action["action_id"] == "feedback_up" else "down"
        user = body.get("user") or {}
        team = (body.get("team") or {}).get("id") or user.get("team_id", "")
        container = body.get("container") or {}
        channel = (body.get("channel") or {}).get("id") or container.get("channel_id", "")
        stored = self.store.vote(action.get("value", ""), vote, user_hash(team, user.get("id", "")), channel)
        log.info("slack: %s vote %s", vote, "stored" if stored else "on an unknown answer")
        thread = (body.get("message") or {}).get("thread_ts") or container.get("thread_ts")
        self._call(client.chat_postEphemeral, channel=channel, user=user.get("id", ""), thread_ts=thread,
                   text=(ui.THANKS_UP if vote == "up" else ui.THANKS_DOWN) if stored else ui.GONE)

    # ---- answering ----------------------------------------------------------------------------

    def _start(self, client: WebClient, event: dict[str, Any], conf: ChannelSettings) -> None:
        """Placeholder in the question's thread now; the answer replaces it when ready."""
        channel, ts = event["channel"], event["ts"]
        if not self.store.claim(f"message:{channel}:{ts}"):
            return  # the same message delivered again (e.g. as app_mention and as message)
        thread = event.get("thread_ts") or ts
        question = ui.plain_question(event.get("text"))
        if not question:
            self._call(client.chat_postMessage, channel=channel, thread_ts=thread, text=ui.USAGE)
            return
        placeholder = self._call(client.chat_postMessage, channel=channel, thread_ts=thread,
                                 text=ui.SEARCHING)
        if placeholder is not None:
            self.pool.submit(self._guarded, self._answer_in_thread, client, channel, placeholder["ts"],
                             question, f"slack:{channel}:{thread}", conf)

    def _answer_in_thread(self, client: WebClient, channel: str, ts: str, question: str,
                          conversation: str, conf: ChannelSettings) -> None:
        blocks, text = self._reply(question, conversation, conf, channel)
        if self._call(client.chat_update, channel=channel, ts=ts, text=text, blocks=blocks) is None:
            self._call(client.chat_update, channel=channel, ts=ts, text=text, blocks=[])

    def _answer_ephemeral(self, client: WebClient, respond: Callable[..., None], channel: str, user: str,
                          question: str, conversation: str, conf: ChannelSettings) -> None:
        blocks, text = self._reply(question, conversation, conf, channel)
        posted = self._call(client.chat_postEphemeral, channel=channel, user=user, text=text, blocks=blocks)
        if posted is None:  # not a member of the channel: the command's response_url still works
            respond(text=text, blocks=blocks, response_type="ephemeral", replace_original=False)

    def _reply(self, question: str, conversation: str, conf: ChannelSettings,
               channel: str) -> tuple[list[dict[str, Any]], str]:
        """Blocks and fallback text: the answer, or a short apology (never silence)."""
        try:
            conversations = self.log_getter()
            history = conversations.history(conversation, self.settings.service.conversation_turns)
            engine = self.collection_getter(conf.collection) if conf.collection and self.collection_getter \
                else self.engine_getter()
            result = answer(engine, question, k=conf.k, filters=to_filters(conf.filters),
                            history=history)
            conversations.record(conversation, result, "slack")
            turn = self.store.save_turn(conversation, channel, result)
        except InputError as exc:
            return ui.notice_blocks(str(exc)), str(exc)
        except Exception:
            log.exception("slack: answering failed in %s", conversation)
            return ui.notice_blocks(ui.APOLOGY), ui.APOLOGY
        log.info("slack: answered in %s (abstained=%s, %s ms)", conversation, result.abstained,
                 result.timings.get("total_ms"))
        blocks = ui.answer_blocks(result, turn, max_sources=self.slack.max_sources,
                                  see_also=self.slack.see_also)
        return blocks, ui.answer_text(result)

    @staticmethod
    def _guarded(function: Callable[..., None], *args: Any) -> None:
        try:
            function(*args)
        except Exception:
            log.exception("slack: background reply failed")

    @staticmethod
    def _call(method: Callable[..., Any], **kwargs: Any) -> Any:
        """One Web API call; a Slack error (not_in_channel, invalid_blocks, …) is logged, not raised."""
        try:
            return method(**kwargs)
        except SlackApiError as exc:
            name = getattr(method, "__name__", "call")
            log.warning("slack: %s failed: %s", name, exc.response.get("error"))
            return None


def mount_slack(app: FastAPI, settings: Settings, *, slack: SlackSettings | None = None,
                engine_getter: Callable[[], Engine] | None = None,
                log_getter: Callable[[], ConversationLog] | None = None) -> SlackBot | None:
    """Serve the bot at /slack/events, /slack/commands and /slack/actions when a bot token and
    signing secret are set (else nothing is mounted). Engine and log come from ``app.state``."""
    slack = slack or load_slack_settings()
    if not slack.http_ready:
        log.info("slack: not configured (RAG_SLACK__BOT_TOKEN, RAG_SLACK__SIGNING_SECRET); /slack/* off")
        return None
    bot = SlackBot(settings, slack, engine_getter or (lambda: app.state.live.current()),
                   log_getter or (lambda: app.state.log))
    bot.collection_getter = lambda name: app.state.collections.engine(name)  # a channel's collection

    secret = slack.signing_secret.get_secret_value() if slack.signing_secret else ""

    async def slack_endpoint(request: Request) -> Response:
        body = await request.body()
        if refused := slack_request_problem(body, request.headers, secret):
            return refused
        bolt_response = await run_in_threadpool(bot.app.dispatch, to_bolt_request(request, body))
        if replaced := bolt_problem(bolt_response.status, bolt_response.body):
            log.warning("slack: Bolt answered %s to %s", bolt_response.status, request.url.path)
            return replaced
        return to_starlette_response(bolt_response)

    for path in PATHS:
        app.add_api_route(path, slack_endpoint, methods=["POST"], include_in_schema=False)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        async with inner(a) as state:
            try:
                yield state
            finally:
                await run_in_threadpool(bot.close)  # before the engine closes

    app.router.lifespan_context = lifespan
    app.state.slack_bot = bot
    return bot


def socket_mode_handler(bot: SlackBot) -> SocketModeHandler:
    if not bot.slack.app_token:
        raise RagError("Socket Mode needs an app-level token: set RAG_SLACK__APP_TOKEN (xapp-…, "
                       "scope connections:write).")
    return SocketModeHandler(bot.app, app_token=bot.slack.app_token.get_secret_value())


def run_socket_mode(settings: Settings, *, slack: SlackSettings | None = None,
                    stop: threading.Event | None = None) -> None:
    """Connect to Slack over a WebSocket (no public URL needed) and answer until ``stop`` is set
    or the process is interrupted. Builds the engine and opens the log itself."""
    slack = slack or load_slack_settings()
    if not slack.socket_ready:
        raise RagError("set RAG_SLACK__BOT_TOKEN (xoxb-…) and RAG_SLACK__APP_TOKEN (xapp-…) for Socket Mode.")
    # Follows the index like the HTTP service: an ingest from another process (e.g. compose's
    # api container) is picked up by generation, without a restart.
    live = LiveEngine(settings, build_engine(settings))
    conversations = ConversationLog(settings.data_dir / "service.sqlite")
    bot = SlackBot(settings, slack, live.current, lambda: conversations)
    handler = socket_mode_handler(bot)
    try:
        handler.connect()
        log.info("slack: connected in Socket Mode")
        (stop or threading.Event()).wait()
    finally:
        handler.close()
        bot.close()
        conversations.close()
        live.current().close()
