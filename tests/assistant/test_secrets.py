"""``${NAME}`` values for scheduled requests: the environment, then .env; never our own."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.secrets import EnvironmentSecrets
from tasks import TaskDataError


def test_values_come_from_the_environment_then_the_env_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("HOME_API_TOKEN=from-file\nOTHER_TOKEN='quoted value'\n")
    secrets = EnvironmentSecrets({"HOME_API_TOKEN": "from-env"}, env_file)

    assert secrets.secret("HOME_API_TOKEN") == "from-env"
    assert secrets.secret("OTHER_TOKEN") == "quoted value"
    with pytest.raises(TaskDataError, match=r"set NOT_THERE in the environment or in \.env"):
        secrets.secret("NOT_THERE")


@pytest.mark.parametrize(
    "name",
    ["TELEGRAM_BOT_TOKEN", "ASSISTANT_LLM_API_KEY", "SERPAPI_API_KEY", "ASSISTANT_FUTURE_KEY"],
)
def test_the_assistants_own_settings_are_never_handed_out(name: str) -> None:
    secrets = EnvironmentSecrets({name: "our-own-secret"})

    with pytest.raises(TaskDataError, match="one of the assistant's own settings") as refused:
        secrets.secret(name)
    assert "our-own-secret" not in str(refused.value)
