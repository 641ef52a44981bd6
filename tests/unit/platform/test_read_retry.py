"""The pause before a failed stream read is retried (shared.runtime.bus.set_read_retry).

faststream 0.7's subscribers sleep ``CONSUME_ERROR_BACKOFF_SECONDS`` (5 s) after a
fetch error, so after a Valkey restart every consumer stayed idle that long; the services set
it from ``EMPIRE_READ_RETRY_S`` (0.5 s). The restart test reports the effect (``resume_s``)."""

from __future__ import annotations

import pytest
from faststream.redis.subscriber.usecases import basic, stream_subscriber

from shared.runtime.bus import make_broker
from shared.runtime.settings import Settings

pytestmark = pytest.mark.unit


def test_the_broker_sets_the_read_retry_pause_of_faststreams_stream_subscriber() -> None:
    """Both copies: the stream subscriber's and the base one pub/sub channels use (the
    gateway's lobby reply channel stayed deaf 5 s after a restart with only the first set)."""
    name = "CONSUME_ERROR_BACKOFF_SECONDS"
    saved = [(m, getattr(m, name)) for m in (basic, stream_subscriber)]
    try:
        make_broker(Settings(redis_url="redis://127.0.0.1:1/0", read_retry_s=0.25))
        assert getattr(stream_subscriber, name) == 0.25
        assert getattr(basic, name) == 0.25
    finally:
        for m, v in saved:
            setattr(m, name, v)


def test_the_default_pause_is_well_below_faststreams_five_seconds() -> None:
    assert Settings().read_retry_s == 0.5
