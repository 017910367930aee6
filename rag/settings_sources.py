"""Where settings come from, and how a bad one is explained: every settings group forbids keys
it does not know, a misspelt ``RAG_`` variable (in the environment or in .env) is refused by
name with the closest real one, and other programs' variables in .env are left alone."""

from __future__ import annotations

import difflib
import os
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_settings import DotEnvSettingsSource, PydanticBaseSettingsSource


class Group(BaseModel):
    """A settings group: a misspelt key (``RAG_ANSWER__MIN_ANWSER_SCORE``) is an error that names
    it, never silently ignored."""

    model_config = ConfigDict(extra="forbid")


_PREFIX = "RAG_"


class UnknownRagVariables(PydanticBaseSettingsSource):
    """``RAG_*`` environment variables that name no setting, passed on as extra inputs so that
    validation refuses them (pydantic-settings itself skips unknown top-level variables)."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        known = set(self.settings_cls.model_fields) | _front_end_groups(self.settings_cls)
        return {name.lower(): value for name, value in os.environ.items()
                if name.upper().startswith(_PREFIX)
                and name[len(_PREFIX):].split("__")[0].lower() not in known}


def _front_end_groups(settings_cls: type) -> set[str]:
    """Groups of ``RAG_`` variables that an entry point reads and checks itself."""
    return set(getattr(settings_cls, "front_end_groups", ()))


class OurDotEnv(DotEnvSettingsSource):
    def __call__(self) -> dict[str, Any]:
        known, elsewhere = set(self.settings_cls.model_fields), _front_end_groups(self.settings_cls)
        return {key: value for key, value in super().__call__().items()
                if key in known or (key.lower().startswith(_PREFIX.lower())
                                    and key[len(_PREFIX):].split("__")[0].lower() not in elsewhere)}


def _variable(loc: tuple[int | str, ...]) -> str:
    parts = [str(p) for p in loc]
    if parts and parts[0].lower().startswith(_PREFIX.lower()):
        return parts[0].upper()
    return _PREFIX + "__".join(parts).upper()


def _suggestion(loc: tuple[int | str, ...], model: Any) -> str:
    """"did you mean ..." for a misspelt name, from the fields of the group it was given in."""
    for part in loc[:-1]:
        field = getattr(model, "model_fields", {}).get(str(part))
        model = getattr(field, "annotation", None) if field else None
        if model is None:
            return ""
    name = str(loc[-1]).lower().removeprefix(_PREFIX.lower())
    close = difflib.get_close_matches(name, list(getattr(model, "model_fields", {})), n=1)
    return f" (did you mean {_variable((*loc[:-1], close[0]))}?)" if close else ""


def explain(exc: ValidationError, root: type[BaseModel]) -> str:
    """One message for all of a validation error's problems, each named by its variable."""
    lines = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        if error["type"] == "extra_forbidden":
            lines.append(f"{_variable(loc)} is not a setting{_suggestion(loc, root)}")
        else:
            lines.append(f"{_variable(loc)}: {error['msg'].removeprefix('Value error, ')}")
    return ("invalid settings: " + "; ".join(lines) + ". Fix or unset them (docs/configuration.md "
            "lists every variable).")
