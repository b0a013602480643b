from pathlib import Path

import pytest

from agent.llm import ToolMode
from assistant.app import caldav_sync
from assistant.config import ConfigError, load_settings

_VARIABLES = [
    "ASSISTANT_DATA_DIR",
    "ASSISTANT_TIMEZONE",
    "ASSISTANT_LLM_BASE_URL",
    "ASSISTANT_LLM_MODEL",
    "ASSISTANT_LLM_API_KEY",
    "ASSISTANT_LLM_MODE",
    "ASSISTANT_MAX_ROUNDS",
    "ASSISTANT_HTTP_ALLOW_HOSTS",
    "ASSISTANT_LLM_MODEL_PATH",
    "ASSISTANT_LLM_CTX",
    "ASSISTANT_LLM_GPU_LAYERS",
    "ASSISTANT_LLM_THREADS",
    "ASSISTANT_LLM_GRAMMAR",
    "ASSISTANT_LLM_CHAT_TEMPLATE",
    "ASSISTANT_LLM_MAX_TOKENS",
    "TELEGRAM_BOT_TOKEN",
    "TELEGRAM_ALLOWED_USERS",
    "ASSISTANT_WEB_HOST",
    "ASSISTANT_WEB_PORT",
    "ASSISTANT_API_TOKENS",
    "ASSISTANT_WEB_PUBLIC_URL",
    "ASSISTANT_CALDAV_URL",
    "ASSISTANT_CALDAV_USERNAME",
    "ASSISTANT_CALDAV_PASSWORD",
    "ASSISTANT_CALDAV_CALENDAR",
    "ASSISTANT_CALDAV_USER",
    "ASSISTANT_CALDAV_CHAT",
    "ASSISTANT_CALDAV_SYNC_MINUTES",
]


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in _VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env from the developer's checkout


def test_defaults_work_with_an_empty_environment() -> None:
    settings = load_settings()
    assert settings.data_dir == Path("data")
    assert settings.database_path == Path("data/assistant.db")
    assert settings.llm_base_url is None
    assert settings.llm_mode is ToolMode.AUTO
    assert settings.max_rounds == 5
    assert settings.llm_concurrency == 8
    assert settings.http_allow_hosts == []
    assert settings.telegram_allowed_users == []


def test_values_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSISTANT_TIMEZONE", "Europe/Berlin")
    monkeypatch.setenv("ASSISTANT_LLM_MODE", "contract")
    monkeypatch.setenv("ASSISTANT_MAX_ROUNDS", "7")
    monkeypatch.setenv("ASSISTANT_HTTP_ALLOW_HOSTS", "Home.lan, nas.local ,")
    monkeypatch.setenv("TELEGRAM_ALLOWED_USERS", "12345, 678")
    monkeypatch.setenv("ASSISTANT_LLM_BASE_URL", "  ")
    settings = load_settings()
    assert settings.zone.key == "Europe/Berlin"
    assert settings.llm_mode is ToolMode.CONTRACT
    assert settings.max_rounds == 7
    assert settings.http_allow_hosts == ["home.lan", "nas.local"]
    assert settings.telegram_allowed_users == [12345, 678]
    assert settings.llm_base_url is None


def test_dotenv_file_is_read(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("ASSISTANT_MAX_ROUNDS=3\n")
    assert load_settings().max_rounds == 3


def test_invalid_values_name_the_variable_and_what_it_accepts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ASSISTANT_TIMEZONE", "Mars/Olympus")
    monkeypatch.setenv("ASSISTANT_MAX_ROUNDS", "0")
    monkeypatch.setenv("ASSISTANT_LLM_MODE", "telepathy")
    monkeypatch.setenv("TELEGRAM_ALLOWED_USERS", "me")
    monkeypatch.setenv("ASSISTANT_LLM_CONCURRENCY", "0")
    with pytest.raises(ConfigError) as info:
        load_settings()
    message = str(info.value)
    assert (
        "ASSISTANT_TIMEZONE: unknown time zone 'Mars/Olympus'; use an IANA name like 'Europe/Berlin'"
        in message
    )
    assert "ASSISTANT_MAX_ROUNDS: Input should be greater than or equal to 1 (got '0')" in message
    assert (
        "ASSISTANT_LLM_MODE: Input should be 'native', 'contract' or 'auto' (got 'telepathy')"
        in message
    )
    assert "TELEGRAM_ALLOWED_USERS:" in message
    assert "ASSISTANT_LLM_CONCURRENCY: Input should be greater than or equal to 1" in message


def test_telegram_token_is_checked_with_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(
        ConfigError, match="TELEGRAM_BOT_TOKEN is not set: create a bot with @BotFather"
    ):
        load_settings().telegram_token()
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "not-a-token")
    with pytest.raises(ConfigError, match="does not look like a bot token"):
        load_settings().telegram_token()
    token = "123456789:AAEhBOweik6ad9r_QXMENQjcrGbqCr4K-ra"
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", token)
    assert load_settings().telegram_token() == token


def test_overrides_by_field_name_win_and_bare_field_names_in_the_environment_do_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ASSISTANT_TIMEZONE", "Europe/Berlin")
    monkeypatch.setenv("timezone", "Mars/Olympus")
    assert load_settings().timezone == "Europe/Berlin"
    settings = load_settings(timezone="Asia/Tokyo", max_rounds=9)
    assert (settings.timezone, settings.max_rounds) == ("Asia/Tokyo", 9)


def test_web_settings_and_blank_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    defaults = load_settings()
    assert (defaults.web_host, defaults.web_port, defaults.api_tokens_text()) == (
        "127.0.0.1",
        8080,
        "",
    )
    monkeypatch.setenv("ASSISTANT_WEB_HOST", "[::1]")
    monkeypatch.setenv("ASSISTANT_WEB_PORT", "9000")
    monkeypatch.setenv("ASSISTANT_API_TOKENS", " tok-0123456789abcdef:alice ")
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "")  # an empty line in .env: no bot
    settings = load_settings()
    assert (settings.web_host, settings.web_port) == ("::1", 9000)
    assert settings.api_tokens_text() == "tok-0123456789abcdef:alice"
    assert "tok-0123456789abcdef" not in repr(settings)
    assert settings.telegram_bot_token is None
    monkeypatch.setenv("ASSISTANT_WEB_PORT", "70000")
    with pytest.raises(ConfigError, match="ASSISTANT_WEB_PORT"):
        load_settings()


def test_local_model_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    defaults = load_settings()
    assert defaults.llm_model_path is None
    assert (defaults.llm_ctx, defaults.llm_gpu_layers, defaults.llm_threads) == (4096, 0, None)
    assert (defaults.llm_grammar, defaults.llm_chat_template) == (True, None)
    monkeypatch.setenv("ASSISTANT_LLM_MODEL_PATH", "/models/smol.gguf")
    monkeypatch.setenv("ASSISTANT_LLM_CTX", "2048")
    monkeypatch.setenv("ASSISTANT_LLM_GPU_LAYERS", "-1")
    monkeypatch.setenv("ASSISTANT_LLM_THREADS", " ")
    monkeypatch.setenv("ASSISTANT_LLM_GRAMMAR", "off")
    monkeypatch.setenv("ASSISTANT_LLM_CHAT_TEMPLATE", "gemma")
    monkeypatch.setenv("ASSISTANT_LLM_MAX_TOKENS", "256")
    settings = load_settings()
    assert settings.llm_model_path == Path("/models/smol.gguf")
    assert (settings.llm_ctx, settings.llm_gpu_layers, settings.llm_threads) == (2048, -1, None)
    assert (settings.llm_grammar, settings.llm_chat_template) == (False, "gemma")
    assert settings.llm_max_tokens == 256


def test_bad_local_model_settings_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSISTANT_LLM_CTX", "100")
    monkeypatch.setenv("ASSISTANT_LLM_THREADS", "0")
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert "ASSISTANT_LLM_CTX: Input should be greater than or equal to 576" in str(info.value)
    assert "ASSISTANT_LLM_THREADS: Input should be greater than or equal to 1" in str(info.value)


@pytest.mark.parametrize(
    ("variable", "value", "advice"),
    [
        ("ASSISTANT_LLM_BASE_URL", "notaurl", "'http://localhost:11434/v1'"),
        ("ASSISTANT_LLM_BASE_URL", "localhost:11434/v1", "'http://localhost:11434/v1'"),
        ("ASSISTANT_HTTP_ALLOW_HOSTS", "http://home.lan/", "'home.lan,printer.lan'"),
        ("ASSISTANT_HTTP_ALLOW_HOSTS", "nas.local, home.lan:8123", "'home.lan,printer.lan'"),
    ],
)
def test_a_url_or_host_that_is_not_one_is_refused_at_start(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, advice: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert f"{variable}: " in str(info.value)
    assert advice in str(info.value)


def test_host_names_patterns_and_addresses_are_allowed_hosts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ASSISTANT_HTTP_ALLOW_HOSTS", "home.lan,*.lan,192.168.1.5,[fd00::1],nas.")
    monkeypatch.setenv("ASSISTANT_LLM_BASE_URL", "http://127.0.0.1:8080/v1")
    settings = load_settings()
    assert settings.http_allow_hosts == ["home.lan", "*.lan", "192.168.1.5", "[fd00::1]", "nas."]
    assert settings.llm_base_url == "http://127.0.0.1:8080/v1"


def test_the_caldav_sync_comes_from_its_variables_and_its_password_stays_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert caldav_sync(load_settings()) is None  # not configured: no sync
    monkeypatch.setenv("ASSISTANT_CALDAV_URL", "https://dav.example.org/calendars/me/work/")
    monkeypatch.setenv("ASSISTANT_CALDAV_USERNAME", "me")
    monkeypatch.setenv("ASSISTANT_CALDAV_PASSWORD", "s3cret-calendar-pw")
    monkeypatch.setenv("ASSISTANT_CALDAV_USER", "123456789")
    monkeypatch.setenv("ASSISTANT_CALDAV_SYNC_MINUTES", "2")
    settings = load_settings()
    sync = caldav_sync(settings)
    assert sync is not None
    assert sync.calendar.url == "https://dav.example.org/calendars/me/work/"
    assert (sync.calendar.username, sync.calendar.password) == ("me", "s3cret-calendar-pw")
    assert sync.user_id == "123456789" and sync.chat_id == "123456789"  # the Telegram chat
    assert sync.every.total_seconds() == 120
    assert "s3cret-calendar-pw" in settings.secret_values()  # hidden from every log
    assert "s3cret-calendar-pw" not in repr(settings)


def test_a_caldav_address_with_a_password_in_it_is_refused_without_quoting_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ASSISTANT_CALDAV_URL", "https://me:hunter22@dav.example.org/cal/")
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert "ASSISTANT_CALDAV_URL: must not hold a username or password" in str(info.value)
    assert "hunter22" not in str(info.value)
    monkeypatch.setenv("ASSISTANT_CALDAV_URL", "dav.example.org")
    with pytest.raises(ConfigError, match="ASSISTANT_CALDAV_URL: must be an http"):
        load_settings()
