"""How well the shipped models read cards of each width: the installer's resolution table.

    python bench/vision_widths.py [--scenes 1000] [--procs 2] [--out models/read_rate_by_width.json]

Reads the benchmark's scenes (``bench/bench_vision.py``'s, seeds ``[424242, i]``: each scene lays out
its cards at one width drawn from 52 to 150 pixels) with the seen and the unseen deck sets, and
counts, for each band of card widths, the readable cards (face up, an index corner fully in view),
those read right at the threshold and the wrong reads, as ``bench/bench_vision.py`` counts them.
Writes the table as JSON (``--out``; ``models/read_rate_by_width.json`` is the shipped models'
table, which ``cardroom vision calibrate`` quotes for the card width it measures) and prints it.

The first 1,000 scenes take about 3.5 minutes on two cores. The totals over the bands are the
benchmark's own figures for those scenes (``bench_vision.py --scenes 1000 --tables 0``).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

EDGES = (52, 60, 70, 80, 90, 100, 110, 120, 130, 140, 151)
"""Band edges in pixels of card width (the last band ends past the renderer's 150)."""
DEFAULT_OUT = REPO / "models" / "read_rate_by_width.json"


def scene_counts(job: tuple[str, int, int, int]) -> list[tuple[float, int, int, int]]:
    """``(card width, readable, right, wrong)`` for each scene of ``job`` (deck set, seed, first, end)."""
    import cv2

    from bench_vision import bench_scene, match_reads
    from vision import recognize
    from vision_misses import _decks

    cv2.setNumThreads(1)
    name, seed, lo, hi = job
    rec = recognize.OnnxRecognizer(threads=1)
    out = []
    for i in range(lo, hi):
        scene = bench_scene(_decks(name), seed, i)
        _, hit, wrong = match_reads(scene, rec.recognize(scene.image), rec.threshold)
        readable = [j for j, t in enumerate(scene.cards) if t.readable]
        out.append((float(scene.card_width), len(readable), sum(j in hit for j in readable), len(wrong)))
    return out


def table(per_set: dict[str, list[tuple[float, int, int, int]]],  # type: ignore[no-untyped-def]
          edges=EDGES) -> list[dict]:
    """The bands: ``{"from", "to", <set>: {"readable", "right", "wrong", "right_pct"}}``, ``to`` exclusive."""
    bands = []
    for lo, hi in zip(edges, edges[1:]):
        band: dict = {"from": lo, "to": hi}
        for name, scenes in per_set.items():
            rows = [s for s in scenes if lo <= s[0] < hi]
            readable, right, wrong = (sum(s[k] for s in rows) for k in (1, 2, 3))
            band[name] = {"readable": readable, "right": right, "wrong": wrong,
                          "right_pct": round(100.0 * right / readable, 2) if readable else None}
        bands.append(band)
    return bands


def main(argv: list[str] | None = None) -> int:
    from bench_vision import pool_map
    from vision import recognize

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=424242)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="where to write the table (JSON)")
    args = ap.parse_args(argv)
    if args.scenes < 1 or args.procs < 1:
        ap.error("--scenes and --procs must be at least 1")
    step = 25
    per_set = {}
    for name in ("seen", "unseen"):
        jobs = [(name, args.seed, lo, min(lo + step, args.scenes)) for lo in range(0, args.scenes, step)]
        per_set[name] = [row for part in pool_map(scene_counts, jobs, args.procs) for row in part]
    rec = recognize.OnnxRecognizer(threads=1)
    result = {
        "what": "cards read right at the threshold, by card width in pixels, on rendered benchmark scenes",
        "command": f"python bench/vision_widths.py --scenes {args.scenes}",
        "scenes": args.scenes, "seed": args.seed,
        "threshold": rec.threshold,
        "models": sorted(path.name for path, session in (
            (recognize.DEFAULT_MODEL, rec.session), (recognize.DEFAULT_LAYOUT_MODEL, rec.layout_session),
            (recognize.DEFAULT_SUIT_MODEL, rec.suit_session),
            (recognize.DEFAULT_SUIT_LAYOUT_MODEL, rec.suit_layout_session),
            (recognize.DEFAULT_WHOLE_MODEL, rec.whole_session)) if session is not None),  # the files read with
        "bands": table(per_set),
        "total": {name: {k: sum(s[i] for s in rows) for i, k in ((1, "readable"), (2, "right"), (3, "wrong"))}
                  for name, rows in per_set.items()},
    }
    pathlib.Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    for b in result["bands"]:
        cells = "  ".join(f"{n} {b[n]['right_pct']}% of {b[n]['readable']} ({b[n]['wrong']} wrong)" for n in per_set)
        print(f"{b['from']:3}-{b['to']:3} px  {cells}")
    print(json.dumps(result["total"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
