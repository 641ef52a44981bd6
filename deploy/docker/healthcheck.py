"""Container health check (Docker HEALTHCHECK, compose): GET a probe on this container and exit
0 on a 2xx answer, 1 otherwise. Standard library only.

    python /app/healthcheck.py [PATH] [PORT]

PATH defaults to /readyz; PORT to $EMPIRE_METRICS_PORT (the /metrics, /healthz, /readyz
endpoint of every stream service), else 9100. The gateway answers on its HTTP port: pass 8000.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def probe(path: str = "/readyz", port: str | None = None, timeout: float = 2.0) -> int:
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
    path = argv[1] if len(argv) > 1 else "/readyz"
    port = argv[2] if len(argv) > 2 else None
    return probe(path, port)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
