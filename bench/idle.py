"""``python -m bench.idle``: what the system costs with nothing to do.

Starts the system as the throughput bench does (``bench.system.start_system``: every service,
embedded Valkey), waits ``--settle`` seconds, then prints each process's CPU over ``--seconds``
(ms of CPU per second of wall time, from ``/proc/<pid>/task/*/schedstat``). What remains is
the services' polling: live stream reads, reclaim looks, timer loops, metrics samples. At
``R`` rounds/s that much is spread over the rounds: ``total / R`` ms of every round's CPU.
"""

from __future__ import annotations

import argparse
import json
import time

from bench import system
from bench.longmatch import task_seconds


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.idle", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--settle", type=float, default=5.0)
    args = ap.parse_args(argv)
    sup = system.start_system({})
    try:
        procs = {k: p.pid for k, p in system.service_processes(sup).items() if k != "driver"}
        time.sleep(args.settle)
        a = {k: task_seconds(p) for k, p in procs.items()}
        t0 = time.perf_counter()
        time.sleep(args.seconds)
        dt = time.perf_counter() - t0
        b = {k: task_seconds(p) for k, p in procs.items()}
    finally:
        sup.stop()
    per = {k: round(1000 * (b[k] - a[k]) / dt, 1) for k in procs}
    print(json.dumps({"idle_cpu_ms_per_s": per, "total": round(sum(per.values()), 1)}))


if __name__ == "__main__":
    main()
