"""Watch the latency benchmark's eight table views (seeds 777 to 784, ten zones, one thread) a
given number of rounds, and nothing else: a fixed piece of work to count instructions on, which a
busy machine's swings do not blur.

    valgrind --tool=callgrind --callgrind-out-file=var/cg.0 python bench/watch_frames.py 0
    valgrind --tool=callgrind --callgrind-out-file=var/cg.1 python bench/watch_frames.py 1

Both runs render the views and watch each once (the first look pays for lazy set-up); the second
watches them once more, so (its instruction count - the first's) / 8 is the work of one frame.
"""

from __future__ import annotations

import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main(argv: list[str] | None = None) -> int:
    import cv2

    from bench_vision import table_views
    from vision.config import load_camera_config
    from vision.recognize import DEFAULT_MODEL, OnnxRecognizer
    from vision.watch import TableWatcher

    args = sys.argv[1:] if argv is None else argv
    rounds = int(args[0]) if args else 1
    cv2.setNumThreads(1)
    rec = OnnxRecognizer(DEFAULT_MODEL, threads=1)
    cam = load_camera_config(REPO / "config" / "table.toml")
    views = table_views()
    watchers = [TableWatcher(cam, rec) for _ in views]
    for _ in range(1 + rounds):
        for watcher, view in zip(watchers, views):
            watcher.watch(view)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
