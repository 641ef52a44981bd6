"""Every log line is JSON, the standard library's (uvicorn, asyncio, redis-py) too."""

from __future__ import annotations

import json
import logging
import subprocess
import sys

import pytest

pytestmark = pytest.mark.unit

SCRIPT = """
import logging
from shared.runtime.logging import configure_logging
log = configure_logging("escrow", "INFO", True)
log.info("structlog_line", game_id="g-1", seat=0)
logging.getLogger("uvicorn.error").warning("plain %s", "text")
logging.getLogger("asyncio").error("boom")
try:
    1 / 0
except ZeroDivisionError:
    logging.getLogger("redis").exception("failed")
"""


def test_stdlib_and_structlog_lines_are_all_json() -> None:
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=60)
    lines = [json.loads(line) for line in run.stderr.splitlines() if line.strip()]
    assert [line["event"] for line in lines] == ["structlog_line", "plain text", "boom", "failed"]
    assert all(line["service"] == "escrow" and "timestamp" in line for line in lines)
    assert lines[0]["game_id"] == "g-1" and lines[0]["seat"] == 0
    assert lines[1]["logger"] == "uvicorn.error" and lines[1]["level"] == "warning"
    assert "ZeroDivisionError" in lines[3]["exception"]


def test_the_root_logger_has_one_handler() -> None:
    from shared.runtime.logging import configure_logging

    configure_logging("t", "INFO", True)
    assert len(logging.getLogger().handlers) == 1
