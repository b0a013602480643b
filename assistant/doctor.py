"""``assistant doctor``: what is wrong with the data directory and its database, and what to do.

It reads, never changes: the directory's and files' modes, the database file itself, SQLite's
full ``integrity_check``, every stored text value (a damaged page can leave text that is not
UTF-8 while ``quick_check`` still says ok: such rows are skipped when read, and listed here),
and the age of the newest daily backup.
"""

from __future__ import annotations

import sqlite3
import stat
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from assistant.backup import backups_of, daily_backups
from assistant.datadir import DataError, check_database

MAX_LISTED = 10


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the doctor looked at.

    Attributes:
        ok: Whether it is as it should be.
        what: What was found.
        todo: What to do about it ("" when nothing).
    """

    ok: bool
    what: str
    todo: str = ""


def examine(data_dir: Path, database: Path, *, today: date) -> list[Finding]:
    """Look at the data directory and its database; return what was found, in order."""
    findings = [_modes(data_dir)]
    try:
        check_database(database)
    except DataError as exc:
        return [*findings, Finding(False, str(exc))]
    if not database.exists():
        return [*findings, Finding(True, f"no database yet at {database} (created on first use)")]
    try:
        findings += _database(database)
    except sqlite3.Error as exc:
        findings.append(
            Finding(
                False,
                f"SQLite cannot read {database}: {exc}",
                "restore a backup (see below), or move the file away to start afresh",
            )
        )
    findings.append(_backups(data_dir, today))
    return findings


def render(findings: list[Finding]) -> str:
    """The report: one line per finding, each problem followed by what to do."""
    lines = []
    for finding in findings:
        lines.append(f"{'ok     ' if finding.ok else 'PROBLEM'}  {finding.what}")
        if finding.todo:
            lines.append(f"         what to do: {finding.todo}")
    problems = sum(not f.ok for f in findings)
    lines.append("No problems found." if not problems else f"{problems} problem(s) found.")
    return "\n".join(lines)


def _modes(data_dir: Path) -> Finding:
    if not data_dir.exists():
        return Finding(True, f"no data directory yet at {data_dir} (created on first use)")
    loose = [
        p
        for p in [data_dir, *data_dir.rglob("*")]
        if not p.is_symlink() and p.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO)
    ]
    if not loose:
        return Finding(True, f"{data_dir} and everything in it are private to their owner")
    shown = ", ".join(str(p) for p in loose[:MAX_LISTED])
    return Finding(
        False,
        f"other users may read {len(loose)} path(s): {shown}",
        "start the assistant once (it tightens them), or: chmod -R go-rwx " + str(data_dir),
    )


def _database(database: Path) -> list[Finding]:
    conn = sqlite3.connect(database)
    try:
        conn.text_factory = bytes
        problems = [
            str(row[0], "utf-8", "replace") for row in conn.execute("PRAGMA integrity_check")
        ]
        if problems == ["ok"]:
            checked = Finding(True, f"{database}: SQLite integrity_check ok")
        else:
            checked = Finding(
                False,
                f"{database}: integrity_check reports {len(problems)} problem(s): "
                + "; ".join(problems[:MAX_LISTED]),
                "restore the newest backup (see below); `assistant backup` first keeps a copy "
                "of the damaged file",
            )
        return [checked, _unreadable_text(conn)]
    finally:
        conn.close()


def _unreadable_text(conn: sqlite3.Connection) -> Finding:
    bad: list[str] = []
    tables = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
    ).fetchall()
    for (raw_name,) in tables:
        table = raw_name.decode() if isinstance(raw_name, bytes) else str(raw_name)
        columns = [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')]
        for column in columns:
            name = column.decode() if isinstance(column, bytes) else str(column)
            rows = _text_values(conn, table, name)
            for rowid, value in rows:
                try:
                    value.decode("utf-8")
                except UnicodeDecodeError:
                    bad.append(f"{table} row {rowid} ({name})")
    if not bad:
        return Finding(True, "every stored text value can be read")
    shown = ", ".join(bad[:MAX_LISTED]) + (" ..." if len(bad) > MAX_LISTED else "")
    return Finding(
        False,
        f"{len(bad)} stored value(s) cannot be read (not UTF-8: a damaged page): {shown}",
        "those rows are skipped when read, so nothing else is affected; to get them back, "
        "restore the newest backup that predates the damage (see below)",
    )


def _text_values(conn: sqlite3.Connection, table: str, column: str) -> list[tuple[Any, bytes]]:
    """Each TEXT value of the column (as bytes) with its row id, or "?" for a table without
    row ids. The names come from the database's own schema."""
    where = f'FROM "{table}" WHERE typeof("{column}") = \'text\''
    try:
        return conn.execute(f'SELECT rowid, "{column}" {where}').fetchall()
    except sqlite3.OperationalError:  # WITHOUT ROWID
        return [("?", value) for (value,) in conn.execute(f'SELECT "{column}" {where}')]


def _backups(data_dir: Path, today: date) -> Finding:
    found = daily_backups(backups_of(data_dir))
    if not found:
        return Finding(
            True,
            "no daily backup yet (the scheduler makes one a day); `assistant backup` makes one now",
        )
    newest, day = found[0]
    age = (today - day).days
    listing = f"{len(found)} daily backup(s), the newest {newest} ({day.isoformat()})"
    if age > 1:
        return Finding(
            False,
            f"{listing} is {age} days old",
            "daily backups are made while `assistant chat`, `telegram` or `serve` runs; "
            "run `assistant backup` now",
        )
    return Finding(True, listing)
