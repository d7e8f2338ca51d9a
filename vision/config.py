"""The ``[camera]`` section of the table configuration (``config/table.toml``).

::

    [camera]
    source = "var/demo_feed.mp4"      # device index ("0"), video file, rtsp:// URL, image file or folder
    card_width = 72                   # optional: card width in pixels; estimated per frame if absent
                                      # (`cardroom vision calibrate` measures it from whole cards in view)
    stable_frames = 3
    [[camera.zones]]
    seat = 1
    polygon = [[820, 780], [1100, 780], [1100, 1000], [820, 1000]]
    card_width = 96                   # optional: this seat's own card width, where an angled camera
                                      # sees its cards larger or smaller than camera.card_width

Relative paths (source, model) are relative to the directory holding the TOML file's parent project,
i.e. the file's directory's parent when the file sits in ``config/``, else the file's directory.
"""

from __future__ import annotations

import pathlib
import tomllib
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

VARIANT_CARDS = {
    "holdem": 2,
    "omaha": 4,
    "omaha8": 4,
    "stud": 7,
    "stud8": 7,
    "razz": 7,
}
"""How many cards make a tabled hand in each variant (R2)."""


class ConfigError(ValueError):
    """A table file that cannot be used: names the file, the key and the reason."""


Point = Annotated[list[float], Field(min_length=2, max_length=2)]


class SeatZone(BaseModel):
    """Where one seat's tabled cards lie in the camera image."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seat: int = Field(ge=1, le=10)
    """Seat number, 1..10."""
    polygon: list[Point] = Field(min_length=3)
    """Polygon in image pixels, ``[[x, y], ...]``."""
    card_width: float | None = Field(default=None, gt=8, lt=2000)
    """This seat's card width in pixels where it is not the camera's (``camera.card_width``): a camera
    that looks at the table at an angle sees the far seats' cards smaller, and the index classifier
    refuses crops more than about 15% off scale. ``cardroom vision calibrate`` judges each zone's."""

    def bounds(self, width: int | None = None, height: int | None = None) -> tuple[int, int, int, int]:
        """``(x, y, w, h)`` bounding box, clipped to the frame when its size is given."""
        xs = [p[0] for p in self.polygon]
        ys = [p[1] for p in self.polygon]
        x0, y0 = max(0, int(min(xs))), max(0, int(min(ys)))
        x1, y1 = int(max(xs)) + 1, int(max(ys)) + 1
        if width is not None:
            x1 = min(x1, width)
        if height is not None:
            y1 = min(y1, height)
        return x0, y0, max(0, x1 - x0), max(0, y1 - y0)

    def contains(self, x: float, y: float) -> bool:
        """Whether image point (x, y) lies inside the polygon (even-odd rule)."""
        inside = False
        pts = self.polygon
        n = len(pts)
        for i in range(n):
            (x0, y0), (x1, y1) = pts[i], pts[(i + 1) % n]
            if (y0 > y) != (y1 > y):
                xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
                if x < xc:
                    inside = not inside
        return inside


class CameraConfig(BaseModel):
    """One overhead camera and the seat zones it sees."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    """Device index (``"0"``), video file, ``rtsp://`` URL, still image or a folder of stills."""
    card_width: float | None = Field(default=None, gt=8, lt=2000)
    """Card width in pixels at this camera; estimated from whole cards per frame when absent."""
    index_scale: float = Field(default=1.0, ge=0.5, le=3.0)
    """How large the deck prints its index against the decks the models were trained on: a card is
    read as if it were this many times ``card_width`` (or a zone's) and placed at its own width. A
    "jumbo index" deck wants about 1.35; ``cardroom vision calibrate`` measures it. 1.0 for standard
    indices; not used where no width is configured or measured (the width search finds it)."""
    model: str = "models/card_index.onnx"
    """The ONNX index classifier."""
    model_sha256: str | None = None
    """If set, the model file must have this SHA-256 (refused otherwise)."""
    threshold: float | None = Field(default=None, gt=0.5, le=1.0)
    """Confidence a card read must reach; the model's calibrated value when absent."""
    stable_frames: int = Field(default=3, ge=1, le=100)
    """Consecutive frames a seat's reading must hold before it is identifiable."""
    variant: str = "holdem"
    """Game variant, deciding how many cards a hand needs (``holdem``, ``omaha``, ``stud``...)."""
    zones: list[SeatZone] = Field(default_factory=list)

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, v: str) -> str:
        if v not in VARIANT_CARDS:
            raise ValueError(f"unknown variant {v!r}: expected one of {sorted(VARIANT_CARDS)}")
        return v

    @model_validator(mode="after")
    def _distinct_seats(self) -> CameraConfig:
        seats = [z.seat for z in self.zones]
        dup = {s for s in seats if seats.count(s) > 1}
        if dup:
            raise ValueError(f"seat {min(dup)} has more than one zone")
        return self

    @property
    def cards_needed(self) -> int:
        return VARIANT_CARDS[self.variant]


def project_root(config_path: pathlib.Path) -> pathlib.Path:
    """Directory relative paths in the file are taken from."""
    d = config_path.resolve().parent
    return d.parent if d.name == "config" else d


def resolve(config_path: pathlib.Path, value: str) -> str:
    """A path from the file made absolute, leaving device indices and URLs alone."""
    if value.isdigit() or "://" in value:
        return value
    p = pathlib.Path(value)
    return str(p if p.is_absolute() else project_root(config_path) / p)


def load_camera_config(path: str | pathlib.Path) -> CameraConfig:
    """Read and validate the ``[camera]`` section of a TOML table file.

    A ``[game] variant`` key, when present and the camera section names none, sets the variant.

    :raises ConfigError: naming the file, the key and the reason.
    """
    path = pathlib.Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    section = data.get("camera")
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: no [camera] section")
    section = dict(section)
    game = data.get("game")
    if "variant" not in section and isinstance(game, dict) and isinstance(game.get("variant"), str):
        section["variant"] = game["variant"]
    try:
        return CameraConfig.model_validate(section)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(["camera", *(str(p) for p in err["loc"])])
        raise ConfigError(f"{path}: {key}: {err['msg']}") from None
