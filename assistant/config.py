"""Settings, read once at the edge from the environment and ``.env`` into a frozen object."""

from __future__ import annotations

import ipaddress
import os
from datetime import timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from agent.llm import Order, ToolMode
from common import LazyPattern, is_postgres_url, url_secrets
from memory import NoteLimits
from tasks import LedgerPolicy, TaskLimits, parse_intervals

_TOKEN_SHAPE = LazyPattern(r"^\d{5,16}:[A-Za-z0-9_-]{30,64}$")


SCHEDULER_COMMANDS = "`assistant chat`, `assistant telegram`, `assistant web` or `assistant serve`"
"""The commands that run the scheduler (one at a time on a data directory), as people are told."""


_HOST_NAME = LazyPattern(r"^(\*\.)?[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?\.?$")


class ConfigError(ValueError):
    """A setting has a value the assistant cannot use; the message names the variable."""


def _env(name: str) -> Any:
    """An optional setting read from the variable ``name``."""
    return Field(None, validation_alias=AliasChoices(name))


def system_timezone() -> str:
    """Return the machine's IANA zone name (``TZ``, ``/etc/localtime``), or ``"UTC"``."""
    candidate = os.environ.get("TZ", "").lstrip(":")
    if candidate and _is_zone(candidate):
        return candidate
    try:
        target = Path("/etc/localtime").resolve()
    except OSError:
        return "UTC"
    parts = target.parts
    if "zoneinfo" in parts:
        name = "/".join(parts[parts.index("zoneinfo") + 1 :])
        if _is_zone(name):
            return name
    return "UTC"


def _is_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _is_host(text: str) -> bool:
    """Whether ``text`` is a host name, a ``*.suffix`` pattern or an IP address."""
    if ":" in text or text.startswith("["):
        try:
            ipaddress.ip_address(text.strip("[]"))
        except ValueError:
            return False
        return True
    return bool(_HOST_NAME.match(text))


def _split_list(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    """Every setting of the assistant; each variable is in docs/configuration.md."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        frozen=True,
    )

    data_dir: Path = Field(Path("data"), validation_alias=AliasChoices("ASSISTANT_DATA_DIR"))
    database_url: SecretStr | None = _env("ASSISTANT_DATABASE_URL")
    database_pool_size: int = Field(
        4, ge=1, le=100, validation_alias=AliasChoices("ASSISTANT_DATABASE_POOL_SIZE")
    )
    date_order: Literal["mdy", "dmy"] = Field(
        "mdy", validation_alias=AliasChoices("ASSISTANT_DATE_ORDER")
    )
    timezone: str = Field(
        default_factory=system_timezone, validation_alias=AliasChoices("ASSISTANT_TIMEZONE")
    )
    llm_base_url: str | None = _env("ASSISTANT_LLM_BASE_URL")
    llm_model: str = Field("gpt-4o-mini", validation_alias=AliasChoices("ASSISTANT_LLM_MODEL"))
    llm_api_key: SecretStr | None = _env("ASSISTANT_LLM_API_KEY")
    llm_mode: ToolMode = Field(ToolMode.AUTO, validation_alias=AliasChoices("ASSISTANT_LLM_MODE"))
    llm_order: Order = Field(
        Order.PLANNER_FIRST, validation_alias=AliasChoices("ASSISTANT_LLM_ORDER")
    )
    llm_timeout: float = Field(
        60.0, gt=0, le=600, validation_alias=AliasChoices("ASSISTANT_LLM_TIMEOUT")
    )
    llm_concurrency: int = Field(
        8, ge=1, le=256, validation_alias=AliasChoices("ASSISTANT_LLM_CONCURRENCY")
    )
    llm_model_path: Path | None = _env("ASSISTANT_LLM_MODEL_PATH")
    llm_ctx: int = Field(
        4096, ge=576, le=1_048_576, validation_alias=AliasChoices("ASSISTANT_LLM_CTX")
    )
    llm_gpu_layers: int = Field(0, ge=-1, validation_alias=AliasChoices("ASSISTANT_LLM_GPU_LAYERS"))
    llm_threads: int | None = Field(
        None, ge=1, le=1024, validation_alias=AliasChoices("ASSISTANT_LLM_THREADS")
    )
    llm_grammar: bool = Field(True, validation_alias=AliasChoices("ASSISTANT_LLM_GRAMMAR"))
    llm_chat_template: str | None = _env("ASSISTANT_LLM_CHAT_TEMPLATE")
    llm_max_tokens: int = Field(
        512, ge=16, le=32_768, validation_alias=AliasChoices("ASSISTANT_LLM_MAX_TOKENS")
    )
    alert_after: int = Field(
        3, ge=1, le=1000, validation_alias=AliasChoices("ASSISTANT_ALERT_AFTER_FAILURES")
    )
    max_rounds: int = Field(5, ge=1, le=20, validation_alias=AliasChoices("ASSISTANT_MAX_ROUNDS"))
    max_message_chars: int = Field(
        4000, ge=100, le=10_000, validation_alias=AliasChoices("ASSISTANT_MAX_MESSAGE_CHARS")
    )
    max_calls_per_reply: int = Field(
        10, ge=1, le=1000, validation_alias=AliasChoices("ASSISTANT_MAX_CALLS_PER_REPLY")
    )
    max_tasks_per_user: int = Field(
        500, ge=1, le=10_000_000, validation_alias=AliasChoices("ASSISTANT_MAX_TASKS_PER_USER")
    )
    max_task_bytes_per_user: int = Field(
        2_000_000,
        ge=1000,
        le=10**12,
        validation_alias=AliasChoices("ASSISTANT_MAX_TASK_BYTES_PER_USER"),
    )
    min_interval: str = Field("60", validation_alias=AliasChoices("ASSISTANT_MIN_INTERVAL"))
    max_notes_per_user: int = Field(
        5000, ge=1, le=10_000_000, validation_alias=AliasChoices("ASSISTANT_MAX_NOTES_PER_USER")
    )
    max_note_bytes_per_user: int = Field(
        5_000_000,
        ge=1000,
        le=10**12,
        validation_alias=AliasChoices("ASSISTANT_MAX_NOTE_BYTES_PER_USER"),
    )
    max_turns_per_user: int = Field(
        3, ge=1, le=1000, validation_alias=AliasChoices("ASSISTANT_MAX_TURNS_PER_USER")
    )
    ledger_keep_days: float = Field(
        1, ge=0, le=36_500, validation_alias=AliasChoices("ASSISTANT_LEDGER_KEEP_DAYS")
    )
    ledger_keep_runs: int = Field(
        1, ge=0, le=1_000_000, validation_alias=AliasChoices("ASSISTANT_LEDGER_KEEP_RUNS")
    )
    finished_keep_days: float = Field(
        3, ge=0, le=36_500, validation_alias=AliasChoices("ASSISTANT_FINISHED_KEEP_DAYS")
    )
    ledger_compact_rows: int = Field(
        1000, ge=1, le=1_000_000, validation_alias=AliasChoices("ASSISTANT_LEDGER_COMPACT_ROWS")
    )
    deliveries_max_bytes: int = Field(
        10_000_000,
        ge=10_000,
        le=10**12,
        validation_alias=AliasChoices("ASSISTANT_DELIVERIES_MAX_BYTES"),
    )
    deliveries_keep: int = Field(
        3, ge=0, le=1000, validation_alias=AliasChoices("ASSISTANT_DELIVERIES_KEEP")
    )
    health_max_late_seconds: float = Field(
        2.0, gt=0, le=3600, validation_alias=AliasChoices("ASSISTANT_HEALTH_MAX_LATE_SECONDS")
    )
    max_event_streams: int = Field(
        5, ge=1, le=1000, validation_alias=AliasChoices("ASSISTANT_MAX_EVENT_STREAMS")
    )
    system_prompt: str | None = _env("ASSISTANT_SYSTEM_PROMPT")
    approval_ttl_minutes: float = Field(
        30.0, gt=0, le=7 * 24 * 60, validation_alias=AliasChoices("ASSISTANT_APPROVAL_TTL_MINUTES")
    )
    http_allow_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias=AliasChoices("ASSISTANT_HTTP_ALLOW_HOSTS")
    )
    custom_tools_dir: Path | None = _env("ASSISTANT_CUSTOM_TOOLS_DIR")
    mcp_config: Path | None = _env("ASSISTANT_MCP_CONFIG")
    backup_days: int = Field(
        7, ge=0, le=3650, validation_alias=AliasChoices("ASSISTANT_BACKUP_DAYS")
    )
    log_level: str = Field("WARNING", validation_alias=AliasChoices("ASSISTANT_LOG_LEVEL"))
    serpapi_api_key: SecretStr | None = _env("SERPAPI_API_KEY")
    telegram_bot_token: SecretStr | None = _env("TELEGRAM_BOT_TOKEN")
    telegram_allowed_users: Annotated[list[int], NoDecode] = Field(
        default_factory=list, validation_alias=AliasChoices("TELEGRAM_ALLOWED_USERS")
    )
    telegram_base_url: str = Field(
        "https://api.telegram.org/bot", validation_alias=AliasChoices("TELEGRAM_BASE_URL")
    )
    telegram_webhook_url: str | None = _env("TELEGRAM_WEBHOOK_URL")
    telegram_webhook_listen: str = Field(
        "0.0.0.0:8443", validation_alias=AliasChoices("TELEGRAM_WEBHOOK_LISTEN")
    )
    web_host: str = Field("127.0.0.1", validation_alias=AliasChoices("ASSISTANT_WEB_HOST"))
    web_port: int = Field(8080, ge=0, le=65535, validation_alias=AliasChoices("ASSISTANT_WEB_PORT"))
    web_head_timeout: float = Field(
        10.0, gt=0, le=600, validation_alias=AliasChoices("ASSISTANT_WEB_HEAD_TIMEOUT")
    )
    web_body_timeout: float = Field(
        30.0, gt=0, le=3600, validation_alias=AliasChoices("ASSISTANT_WEB_BODY_TIMEOUT")
    )
    web_max_connections: int = Field(
        256, ge=1, le=100_000, validation_alias=AliasChoices("ASSISTANT_WEB_MAX_CONNECTIONS")
    )
    api_token_min_bits: float = Field(
        50, ge=0, le=256, validation_alias=AliasChoices("ASSISTANT_API_TOKEN_MIN_BITS")
    )
    # Read as a secret: a bad value is reported without quoting it (``api_tokens_text``).
    api_tokens: SecretStr | None = _env("ASSISTANT_API_TOKENS")
    # Calendars (docs/calendar.md).
    web_public_url: str | None = _env("ASSISTANT_WEB_PUBLIC_URL")
    caldav_url: str | None = _env("ASSISTANT_CALDAV_URL")
    caldav_username: str | None = _env("ASSISTANT_CALDAV_USERNAME")
    caldav_password: SecretStr | None = _env("ASSISTANT_CALDAV_PASSWORD")
    caldav_calendar: str | None = _env("ASSISTANT_CALDAV_CALENDAR")
    caldav_user: str = Field("local", validation_alias=AliasChoices("ASSISTANT_CALDAV_USER"))
    caldav_chat: str | None = _env("ASSISTANT_CALDAV_CHAT")
    caldav_sync_minutes: float = Field(
        5.0, ge=0.1, le=1440, validation_alias=AliasChoices("ASSISTANT_CALDAV_SYNC_MINUTES")
    )

    def __init__(self, **values: Any) -> None:
        """Read the environment and ``.env``; ``values`` by field name take precedence."""
        super().__init__(**{_env_name(name): value for name, value in values.items()})

    @field_validator("http_allow_hosts", mode="before")
    @classmethod
    def _hosts(cls, value: object) -> object:
        hosts = _split_list(value)
        if isinstance(hosts, list):
            for host in hosts:
                if not _is_host(str(host)):
                    raise ValueError(
                        f"{str(host)!r} is not a host name; list names without scheme, port "
                        "or path, e.g. 'home.lan,printer.lan'"
                    )
            return [str(h).lower() for h in hosts]
        return hosts

    @field_validator("llm_base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                "must be the http(s) URL of an OpenAI-compatible server, e.g. "
                "'http://localhost:11434/v1' (Ollama) or 'https://api.openai.com/v1'; leave it "
                "empty for the offline planner"
            )
        return value.strip()

    @field_validator("web_public_url", "caldav_url")
    @classmethod
    def _web_address(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                "must be an http(s) address, e.g. 'https://assistant.example.org' (the "
                "public address) or 'https://cal.example.org/dav/calendars/me/personal/'"
            )
        if parts.username or parts.password:
            raise ValueError(
                "must not hold a username or password: set ASSISTANT_CALDAV_USERNAME and "
                "ASSISTANT_CALDAV_PASSWORD instead"
            )
        return value.strip()

    @field_validator("llm_order", mode="before")
    @classmethod
    def _order(cls, value: object) -> object:
        if isinstance(value, str):
            wanted = value.strip().lower()
            if wanted not in {each.value for each in Order}:
                raise ValueError(
                    "must be planner-first (the planner reads every message first and does "
                    "what it understands without the model; the default) or model-first (the "
                    "model sees every message; for large models)"
                )
            return wanted
        return value

    @field_validator("telegram_allowed_users", mode="before")
    @classmethod
    def _users(cls, value: object) -> object:
        return _split_list(value)

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        if not _is_zone(value):
            raise ValueError(f"unknown time zone {value!r}; use an IANA name like 'Europe/Berlin'")
        return value

    @field_validator("web_host")
    @classmethod
    def _host(cls, value: str) -> str:
        host = value.strip().removeprefix("[").removesuffix("]")
        if not host or any(c.isspace() or c in "/@" for c in host):
            raise ValueError("must be an address to listen on, e.g. 127.0.0.1 or 0.0.0.0")
        return host

    @field_validator(
        "llm_base_url",
        "llm_model_path",
        "llm_threads",
        "llm_chat_template",
        "mcp_config",
        "system_prompt",
        "telegram_webhook_url",
        "telegram_bot_token",
        "api_tokens",
        "web_public_url",
        "caldav_url",
        "caldav_username",
        "caldav_password",
        "caldav_calendar",
        "caldav_chat",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("database_url", mode="before")
    @classmethod
    def _database(cls, value: object) -> object:
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        if isinstance(value, str) and not value.strip():
            return None
        if isinstance(value, str) and not is_postgres_url(value.strip()):
            raise ValueError(
                "must be a PostgreSQL URL such as postgresql://user:password@host:5432/assistant "
                "(unset it to keep the SQLite database under ASSISTANT_DATA_DIR)"
            )
        return value.strip() if isinstance(value, str) else value

    @field_validator("min_interval")
    @classmethod
    def _intervals(cls, value: str) -> str:
        parse_intervals(value)
        return value.strip() or "60"

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        level = value.upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError(f"{value!r} is not DEBUG, INFO, WARNING, ERROR or CRITICAL")
        return level

    @property
    def zone(self) -> ZoneInfo:
        """The configured zone as a ``ZoneInfo``."""
        return ZoneInfo(self.timezone)

    @property
    def task_limits(self) -> TaskLimits:
        """What one owner may schedule (ASSISTANT_MAX_TASKS_PER_USER and friends)."""
        return TaskLimits(
            max_tasks=self.max_tasks_per_user,
            max_bytes=self.max_task_bytes_per_user,
            min_interval=MappingProxyType(parse_intervals(self.min_interval)),
        )

    @property
    def ledger_policy(self) -> LedgerPolicy:
        """What of the run ledger and of finished tasks is kept (ASSISTANT_LEDGER_KEEP_DAYS,
        ASSISTANT_FINISHED_KEEP_DAYS and friends)."""
        return LedgerPolicy(
            keep_for=timedelta(days=self.ledger_keep_days),
            keep_runs=self.ledger_keep_runs,
            rows_per_round=self.ledger_compact_rows,
            finished_for=timedelta(days=self.finished_keep_days),
        )

    @property
    def note_limits(self) -> NoteLimits:
        """What one user may keep in notes (ASSISTANT_MAX_NOTES_PER_USER and friends)."""
        return NoteLimits(max_notes=self.max_notes_per_user, max_bytes=self.max_note_bytes_per_user)

    @property
    def database_path(self) -> Path:
        """The SQLite database file."""
        return self.data_dir / "assistant.db"

    @property
    def postgres_url(self) -> str | None:
        """The PostgreSQL URL every store uses, or ``None`` for SQLite under the data dir."""
        return None if self.database_url is None else self.database_url.get_secret_value()

    @property
    def tools_dir(self) -> Path:
        """Where custom tools are loaded from."""
        return self.custom_tools_dir or self.data_dir / "custom_tools"

    @property
    def mcp_config_path(self) -> Path:
        """The file of the MCP servers whose tools the assistant uses (docs/mcp.md)."""
        return self.mcp_config or self.data_dir / "mcp.json"

    def api_tokens_text(self) -> str:
        """The ``token:user,...`` pairs of the web API ("" when none are set)."""
        return self.api_tokens.get_secret_value().strip() if self.api_tokens else ""

    def secret_values(self) -> list[str]:
        """The secrets among the settings (API keys, the bot token, the database password), to
        hide from every log."""
        held = (
            self.llm_api_key,
            self.serpapi_api_key,
            self.telegram_bot_token,
            self.caldav_password,
        )
        values = [s.get_secret_value() for s in held if s is not None and s.get_secret_value()]
        return values + ([] if self.postgres_url is None else url_secrets(self.postgres_url))

    def telegram_token(self) -> str:
        """Return the bot token after checking its shape.

        Raises:
            ConfigError: when it is missing or does not look like ``123456:ABC...``.
        """
        if self.telegram_bot_token is None or not self.telegram_bot_token.get_secret_value():
            raise ConfigError(
                "TELEGRAM_BOT_TOKEN is not set: create a bot with @BotFather in Telegram and "
                "set TELEGRAM_BOT_TOKEN=<the token it gives you> (in the environment or .env)"
            )
        token = self.telegram_bot_token.get_secret_value().strip()
        if not _TOKEN_SHAPE.match(token):
            raise ConfigError(
                "TELEGRAM_BOT_TOKEN does not look like a bot token (expected digits, a colon, "
                "then 30-64 letters, digits, '_' or '-', like '123456789:AAE...'); copy it "
                "again from @BotFather"
            )
        return token


_SECRET_FIELDS = frozenset(
    label
    for name, field in Settings.model_fields.items()
    if "SecretStr" in str(field.annotation)
    for label in (name, *getattr(field.validation_alias, "choices", ()))
)
"""Fields (and their variables) whose values never appear in an error message (tokens, keys,
database URLs with their passwords)."""
_NEVER_QUOTED = frozenset({"caldav_url", "ASSISTANT_CALDAV_URL"})
"""Fields not secret themselves whose wrong values may hold one (a URL with a password)."""


def _env_name(name: str) -> str:
    """The environment variable of the field ``name`` (a variable name is kept as it is)."""
    field = Settings.model_fields.get(name)
    if field is not None and isinstance(field.validation_alias, AliasChoices):
        return str(field.validation_alias.choices[0])
    return name


def setting_names() -> list[str]:
    """The environment variables the settings are read from."""
    return [_env_name(name) for name in Settings.model_fields]


def load_settings(**overrides: Any) -> Settings:
    """Read the settings from the environment and ``.env``.

    Args:
        overrides: Values by field name (``data_dir=...``), taking precedence over both.

    Raises:
        ConfigError: naming each variable whose value is invalid and what it accepts.
    """
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            where = str(error["loc"][0]) if error["loc"] else "?"
            variable = _env_name(where)
            received = error.get("input")
            secret = where in _SECRET_FIELDS or variable in _SECRET_FIELDS or where in _NEVER_QUOTED
            shown = "" if isinstance(received, dict) or secret else f" (got {received!r})"
            message = str(error["msg"]).removeprefix("Value error, ")
            problems.append(f"{variable}: {message}{shown}")
        raise ConfigError("invalid settings:\n  " + "\n  ".join(problems)) from None
