"""The Slack bot's settings: tokens, and how to answer in each channel. A front end's settings,
so they live with the front end: ``rag.settings.Settings`` knows nothing of them beyond passing
over the ``RAG_SLACK__*`` variables (``Settings.front_end_groups``), and ``load_slack_settings``
reads those variables here, as strictly (a misspelt one is an error that names it)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from rag.errors import ConfigError, InputError
from rag.settings_sources import Group, explain
from rag.text.years import parse_years

SLACK_API_URL = "https://slack.com/api/"


class SlackFilters(Group):
    """A channel's default metadata filters (as ``rag ask --author/--year/--venue/--source``)."""

    author: str | None = Field(None, description="only papers by this author (any word of the name; "
                               "case, accents and initials ignored)")
    year: str | None = Field(None, description='"2023", "2023-2025", "2023-" or "-2021"')
    venue: str | None = Field(None, description="only papers whose venue contains this (any case)")
    source: str | None = Field(None, description="only papers whose source file name starts with this")

    @field_validator("year")
    @classmethod
    def _a_year_or_range(cls, value: str | None) -> str | None:
        try:
            parse_years(value)
        except InputError as exc:
            raise ValueError(str(exc)) from None
        return value


class ChannelSettings(Group):
    """How the bot answers in one channel: an entry of ``RAG_SLACK__CHANNELS`` (by channel id), or
    ``RAG_SLACK__DEFAULT_CHANNEL`` for the channels not listed."""

    answer: bool = Field(True, description="answer questions in this channel at all")
    require_mention: bool = Field(True, description="False: answer every top-level message, and "
                                  "follow-ups in threads the bot answered (needs channels:history)")
    filters: SlackFilters = SlackFilters()
    k: int | None = Field(None, ge=1, le=50, description="papers passed to the answerer")
    collection: str | None = Field(None, max_length=63, pattern=r"^[a-z0-9][a-z0-9_-]*$",
                                   description="the collection this channel asks (default: the service's)")


class SlackSettings(Group):
    """``RAG_SLACK__BOT_TOKEN``, ``RAG_SLACK__SIGNING_SECRET`` (HTTP mode), ``RAG_SLACK__APP_TOKEN``
    (Socket Mode), and per-channel behaviour by channel id, e.g.
    ``RAG_SLACK__CHANNELS='{"C0123ABCD": {"require_mention": false, "filters": {"year": "2023-"}}}'``."""

    bot_token: SecretStr | None = Field(None, description="xoxb-… (OAuth & Permissions)")
    signing_secret: SecretStr | None = Field(None, description="Basic Information > App Credentials")
    app_token: SecretStr | None = Field(None, description="xapp-… with connections:write (Socket Mode)")
    api_url: str = Field(SLACK_API_URL, description="Slack Web API base URL")
    channels: dict[str, ChannelSettings] = Field(default_factory=dict, description="by channel id")
    default_channel: ChannelSettings = Field(default_factory=ChannelSettings,
                                             description="channels not listed in `channels`")
    direct_messages: bool = Field(True, description="answer direct messages (default filters apply)")
    max_sources: int = Field(5, ge=1, le=20, description="sources shown under an answer")
    see_also: int = Field(3, ge=0, le=10, description="closest papers shown when it abstains")
    workers: int = Field(2, ge=1, le=32, description="questions answered at the same time")
    ignore_retries: bool = Field(True, description="ack Slack's retries without processing them")

    @property
    def http_ready(self) -> bool:
        return bool(self.bot_token and self.signing_secret)

    @property
    def socket_ready(self) -> bool:
        return bool(self.bot_token and self.app_token)

    def for_channel(self, channel_id: str, *, direct: bool = False) -> ChannelSettings | None:
        """How to answer in this channel, or None where the bot does not answer. In a direct
        message no mention is needed; a DM channel may still be listed for its own filters."""
        conf = self.channels.get(channel_id, self.default_channel)
        if direct:
            return conf.model_copy(update={"require_mention": False}) if self.direct_messages else None
        return conf if conf.answer else None


class SlackEnv(BaseSettings):
    """``RAG_SLACK__*`` from the environment and .env, with the same prefix, nesting and .env
    file as ``Settings``; every other ``RAG_`` variable is Settings' to check."""

    model_config = SettingsConfigDict(env_prefix="RAG_", env_nested_delimiter="__", env_file=".env",
                                      extra="forbid")

    slack: SlackSettings = SlackSettings()

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: Any,
                                   env_settings: Any, dotenv_settings: Any,
                                   file_secret_settings: Any) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, env_settings, _SlackDotEnv(settings_cls), file_secret_settings


class _SlackDotEnv(DotEnvSettingsSource):
    def __call__(self) -> dict[str, Any]:
        return {key: value for key, value in super().__call__().items() if key == "slack"}


def load_slack_settings() -> SlackSettings:
    """The Slack settings from the environment and .env, every problem named by its variable."""
    try:
        return SlackEnv().slack
    except ValidationError as exc:
        raise ConfigError(explain(exc, SlackEnv)) from None
