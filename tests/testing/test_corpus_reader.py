"""The time corpus's reader: the format of docs/time-language.md, and lines that break it."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from testing.corpus_reader import CorpusFormatError, read_file, render_fires

BERLIN = ZoneInfo("Europe/Berlin")
EXAMPLE = """\
# the contract's example
@now 2026-11-26T10:00 Europe/Berlin          # the instant it is said
at a quarter past eight => 2026-11-26T20:15
@dateorder dmy
on weekdays until december 1 => 2026-11-27T09:00 2026-11-30T09:00 2026-12-01T09:00 end
yesterday at 5 => refuse
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_entries_carry_their_now_zone_order_and_expectation(tmp_path: Path) -> None:
    corpus = read_file(write(tmp_path, "clock.txt", EXAMPLE))
    first, repeating, refused = corpus.entries
    assert (corpus.kind, corpus.sentences) == ("clock", False)
    assert first.text == "at a quarter past eight" and first.where == "clock:3"
    assert first.now == datetime(2026, 11, 26, 10, 0, tzinfo=BERLIN)
    assert (first.date_order, repeating.date_order) == ("mdy", "dmy")
    assert repeating.repeats and not first.repeats and refused.refused


def test_a_sentence_keeps_its_text(tmp_path: Path) -> None:
    text = "@now 2026-11-26T10:00 Europe/Berlin\nremind me tmrw at 6pm to buy milk => 2026-11-27T18:00 | buy milk\n"
    (entry,) = read_file(write(tmp_path, "sentences-remind.txt", text)).entries
    assert (entry.expected, entry.task_text) == ("2026-11-27T18:00", "buy milk")


@pytest.mark.parametrize(
    "line",
    [
        "at 9 => tomorrow",
        "at 9 => 2026-11-27T09:00 2026-11-28T09:00",
        "at 9 2026-11-27T09:00",
        "at 9 => 2026-11-27T09:00 | text in an expression file",
        "@dateorder ymd",
        "@now 2026-11-26T10:00+01:00 Europe/Berlin",
    ],
)
def test_a_line_that_breaks_the_format_is_named(tmp_path: Path, line: str) -> None:
    path = write(tmp_path, "bad.txt", f"@now 2026-11-26T10:00 Europe/Berlin\n{line}\n")
    with pytest.raises(CorpusFormatError, match=r"bad\.txt:2"):
        read_file(path)


def test_readings_are_written_in_the_corpus_notation() -> None:
    fold = datetime(2026, 10, 25, 2, 30, fold=1, tzinfo=BERLIN)
    fires = [datetime(2026, 11, 27, 9, 0, 30, tzinfo=BERLIN), fold]
    assert render_fires(fires[:1], BERLIN, once=True) == "2026-11-27T09:00:30"
    assert render_fires(fires, BERLIN, once=False) == (
        "2026-11-27T09:00:30 2026-10-25T02:30(second occurrence) end"
    )
    assert render_fires([], BERLIN, once=True) == "no fire"
