"""Container health check (Docker HEALTHCHECK, compose): GET one or more probes on this
container and exit 0 only when every one answers 2xx, 1 otherwise. Standard library only.

    python /app/healthcheck.py [PATHS] [PORT]

PATHS is one path or several joined by commas, default /readyz; compose checks the stream
services with "/readyz,/livez" (ready: Redis answers and every subscriber runs; live: no consumer
of this process is wedged). PORT defaults to $EMPIRE_METRICS_PORT (the /metrics, /healthz,
/readyz, /livez endpoint of every stream service), else 9100. The gateway answers on its HTTP
port: pass 8000.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def probe(path: str = "/readyz", port: str | None = None, timeout: float = 3.0) -> int:
    port = port or os.environ.get("EMPIRE_METRICS_PORT") or "9100"
    url = f"http://127.0.0.1:{port}{path}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            ok = 200 <= answer.status < 300
    except urllib.error.HTTPError as exc:
        print(f"{url}: HTTP {exc.code}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{url}: {exc}", file=sys.stderr)
        return 1
    return 0 if ok else 1


def main(argv: list[str]) -> int:
    paths = (argv[1] if len(argv) > 1 else "/readyz").split(",")
    port = argv[2] if len(argv) > 2 else None
    return max(probe(path, port) for path in paths)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
