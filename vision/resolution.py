"""What the shipped models read at a given card width: the installer's resolution table.

How many pixels a card covers decides how well its index can be read: on the benchmark's scenes
the shipped models read nearly every card 120 pixels wide or more, and one card in seven of those
under 60 pixels (the index's rank is then a few pixels tall). ``bench/vision_widths.py`` measures
it band by band and writes ``models/read_rate_by_width.json``; ``cardroom vision calibrate`` quotes
the band of the card width it measures or is configured with, and the width from which the
seen-deck target (:data:`SEEN_TARGET`) is met, so an installer knows before the first hand whether
the camera is close enough.

>>> bands = [Band(52, 60, 85.0, 82.0), Band(60, 120, 97.0, 95.0), Band(120, 151, 99.8, 99.5)]
>>> band_for(64, bands).lo, band_for(150.5, bands).hi, band_for(40, bands)
(60, 151, None)
>>> width_for(SEEN_TARGET, "seen", bands), width_for(99.9, "seen", bands)
(120, None)
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from collections.abc import Sequence

DEFAULT_TABLE = pathlib.Path(__file__).resolve().parents[1] / "models" / "read_rate_by_width.json"
SEEN_TARGET = 99.5
"""Per cent of tabled cards of the decks the models were trained on to be read right (issue 5)."""
UNSEEN_TARGET = 95.0
"""The same for deck designs the models never saw."""


class ResolutionTableError(ValueError):
    """The resolution table is missing or malformed; the message names the file and the problem."""


@dataclasses.dataclass(frozen=True)
class Band:
    """Cards ``lo`` to ``hi`` pixels wide (``hi`` exclusive): per cent read right, seen and unseen decks."""

    lo: float
    hi: float
    seen_pct: float
    unseen_pct: float
    readable: int = 0
    """Seen-deck cards the figure rests on."""
    seen_wrong_per_1000: float = 0.0
    unseen_wrong_per_1000: float = 0.0
    """Wrong reads at the threshold per 1,000 readable cards, seen and unseen decks."""


def load(path: str | pathlib.Path = DEFAULT_TABLE) -> list[Band]:
    """The bands of ``path`` (``bench/vision_widths.py``'s JSON), narrowest cards first."""
    path = pathlib.Path(path)
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise ResolutionTableError(f"{path}: cannot read the resolution table ({exc.strerror})") from exc
    except ValueError as exc:
        raise ResolutionTableError(f"{path}: not JSON ({exc})") from exc
    bands = []
    try:
        for k, b in enumerate(data["bands"]):
            seen, unseen = b["seen"], b["unseen"]
            if None in (seen["right_pct"], unseen["right_pct"]) or min(seen["readable"], unseen["readable"]) < 1:
                raise ResolutionTableError(f"{path}: band {k} ({b['from']}-{b['to']} px) has no cards")
            bands.append(Band(float(b["from"]), float(b["to"]), float(seen["right_pct"]),
                              float(unseen["right_pct"]), int(seen["readable"]),
                              1000.0 * seen["wrong"] / seen["readable"], 1000.0 * unseen["wrong"] / unseen["readable"]))
    except (KeyError, TypeError) as exc:
        raise ResolutionTableError(f"{path}: a band lacks {exc} (expected bench/vision_widths.py's output)") from exc
    if not bands:
        raise ResolutionTableError(f"{path}: no bands")
    bands.sort(key=lambda b: b.lo)
    if any(a.hi != b.lo or a.lo >= a.hi for a, b in zip(bands, bands[1:])):
        raise ResolutionTableError(f"{path}: the bands must follow on from one another without gaps")
    return bands


def band_for(width: float, bands: Sequence[Band]) -> Band | None:
    """The band holding ``width`` pixels, or ``None`` outside the measured widths."""
    return next((b for b in bands if b.lo <= width < b.hi), None)


def width_for(target: float, deck_set: str, bands: Sequence[Band]) -> float | None:
    """The narrowest band edge from which every band up reads ``target`` per cent or more of
    ``deck_set`` ("seen" or "unseen"), or ``None`` where even the widest band does not."""
    attr = {"seen": "seen_pct", "unseen": "unseen_pct"}[deck_set]
    edge = None
    for b in reversed(bands):
        if getattr(b, attr) < target:
            break
        edge = b.lo
    return edge


CLOSER = "move the camera closer, raise its resolution, or split the seats among more cameras ([[cameras]])"
"""The advice for cards narrower than the seen-deck target needs: more pixels on each card
(``bench/vision_cameras.py``: six 1920x1080 cameras of one or two seats each identify 99.3% of the
seen decks' readable seats, one camera over ten seats 97.7%)."""


def report(width: float | None, bands: Sequence[Band], source: str = "measured") -> str:
    """One line for the installer: what cards ``width`` pixels wide are read, and the width the
    seen-deck target needs (``source``: where the width came from, "measured" or "configured")."""
    need = width_for(SEEN_TARGET, "seen", bands)
    goal = (f"trained designs {need:g} px or wider read {SEEN_TARGET:g}% or more" if need is not None
            else f"no measured width reads {SEEN_TARGET:g}%")
    if width is None:
        return f"resolution: no card width to judge (configure camera.card_width or lay a card down); {goal}"
    band = band_for(width, bands)
    if band is None:
        side = "narrower" if width < bands[0].lo else "wider"
        measured = f"{bands[0].lo:g} to {bands[-1].hi - 1:g} px"
        advice = f": {CLOSER}" if side == "narrower" else ""
        return (f"resolution: cards {width:.0f} px wide ({source}) are {side} than any measured ({measured}); "
                f"{goal}{advice}")
    line = (f"resolution: cards {width:.0f} px wide ({source}): the shipped models read {band.seen_pct:.1f}% of "
            f"the deck designs they were trained on and {band.unseen_pct:.1f}% of other designs (wrong "
            f"{band.seen_wrong_per_1000:.1f} and {band.unseen_wrong_per_1000:.1f} per 1,000), rendered "
            f"{band.lo:g} to {band.hi:g} px wide (bench/vision_widths.py); {goal}")
    if need is not None and width < need:
        return f"{line}: {CLOSER}"
    return line


def line(width: float | None, source: str = "configured", path: str | pathlib.Path = DEFAULT_TABLE) -> str:
    """:func:`report` from the table at ``path``, or "resolution: not judged" with the reason when
    the table cannot be used (the calibration and the start of a table go on without it)."""
    try:
        bands = load(path)
    except ResolutionTableError as exc:
        return f"resolution: not judged: {exc}"
    return report(width, bands, source)
