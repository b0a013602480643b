"""Redaction of free text and of every log record a handler writes."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from common import RedactingFilter, install_log_redaction, redact_text

TOKEN = "123456789:AAEabcdefghijklmnopqrstuvwxyz0123456"
KEY = "sk-proj-0123456789abcdefABCDEF"


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        (f"Set Bot API URL: https://api.telegram.org/bot{TOKEN}/getMe", TOKEN),
        (f"Incorrect API key provided: Bearer {KEY}.", KEY),
        (f"Incorrect API key provided: {KEY[:12]}*****CDEF", KEY[:12]),
        ("echo Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy"),
        ("GET https://api.test/v1?q=news&api_key=abc123&x=1 -> 200", "abc123"),
        ("cannot connect to https://me:hunter22@llm.test/v1", "hunter22"),
        ("headers [(b'Set-Cookie', b'sid=s3ss10n')]", "s3ss10n"),
        ("the configured value pr1vate-value leaked", "pr1vate-value"),
    ],
)
def test_redact_text_hides_secrets_in_free_text(text: str, hidden: str) -> None:
    shown = redact_text(text, ["pr1vate-value"])
    assert hidden not in shown
    assert "[redacted]" in shown


def test_redact_text_leaves_ordinary_text_alone() -> None:
    for text in (
        "reminder k3m9xa at 09:00 (Europe/Berlin): call mom about the 12:30 train",
        "Basic information about bearer bonds, see https://example.org/bonds?page=2",
    ):
        assert redact_text(text) == text


@pytest.fixture
def written() -> Iterator[io.StringIO]:
    """A handler on a private root-like logger, as the CLI's basicConfig makes one."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    top = logging.getLogger("redaction-test")
    top.addHandler(handler)
    top.setLevel(logging.DEBUG)
    yield stream
    top.removeHandler(handler)


def test_the_handler_filter_scrubs_records_of_child_loggers(written: io.StringIO) -> None:
    install_log_redaction(TOKEN, logger=logging.getLogger("redaction-test"))
    child = logging.getLogger("redaction-test.telegram.Bot")  # a child: no filter of its own

    child.debug("Set Bot API URL: %s", f"https://api.telegram.org/bot{TOKEN}")
    child.info("key %s", TOKEN.split(":")[1])
    try:
        raise RuntimeError(f"request to https://api.telegram.org/bot{TOKEN}/getMe failed")
    except RuntimeError:
        child.exception("the bot stopped")

    text = written.getvalue()
    assert TOKEN not in text and TOKEN.split(":")[1] not in text
    assert "Set Bot API URL: https://api.telegram.org/bot[redacted]" in text
    assert "RuntimeError: request to" in text  # the traceback is kept, scrubbed


def test_installing_again_adds_secrets_to_the_filter_in_place(written: io.StringIO) -> None:
    top = logging.getLogger("redaction-test")
    first = install_log_redaction("first-secret", logger=top)
    again = install_log_redaction("second-secret", None, logger=top)

    top.warning("first-secret and second-secret")

    assert first is again and isinstance(first, RedactingFilter)
    assert sum(isinstance(f, RedactingFilter) for h in top.handlers for f in h.filters) == 1
    assert written.getvalue() == "[redacted] and [redacted]\n"
