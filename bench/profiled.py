"""Run a service module under pyinstrument, sampling only between two signals (the fallback
profiler of ``python -m bench --profile`` when py-spy is not installed).

    python -m bench.profiled services.adjudicator /path/prefix

SIGUSR1 starts the profiler (main thread, wall clock, 1 ms), SIGUSR2 stops it and writes
``<prefix>.flat.txt`` (self and total time per function) and ``<prefix>.txt`` (call tree). The
service runs unchanged (``runpy`` as ``__main__``).

Caveat: a wall-clock profile of an event loop (uvloop waits in C) charges each idle gap to the
frame that runs next, so idle time leaks into frames such as ``Runner.run`` and
``execute_command``; py-spy, which skips idle samples, is the better instrument. (A CPU-time
clock, ``time.thread_time``, costs a system call per Python call here: ~10x slower services.)
"""

from __future__ import annotations

import runpy
import signal
import sys
from pathlib import Path
from types import FrameType

from pyinstrument import Profiler


def main() -> None:
    module, prefix = sys.argv[1], Path(sys.argv[2])
    profiler = Profiler(interval=0.001, async_mode="disabled")

    def start(signum: int, frame: FrameType | None) -> None:
        if not profiler.is_running:
            profiler.start()

    def stop(signum: int, frame: FrameType | None) -> None:
        if not profiler.is_running:
            return
        profiler.stop()
        prefix.parent.mkdir(parents=True, exist_ok=True)
        prefix.with_name(prefix.name + ".flat.txt").write_text(
            "self time per function\n"
            + profiler.output_text(flat=True, flat_time="self", time="percent_of_total")
            + "\ntotal time per function\n"
            + profiler.output_text(flat=True, flat_time="total", time="percent_of_total")
        )
        # the call tree last: its presence tells the bench that both files are written
        prefix.with_name(prefix.name + ".txt").write_text(
            profiler.output_text(
                time="percent_of_total", processor_options={"show_regex": r"services|shared"}
            )
        )

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    sys.argv = [module]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
