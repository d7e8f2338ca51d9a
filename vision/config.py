"""The cameras of the table configuration (``config/table.toml``): one ``[camera]`` section, or
several ``[[cameras]]`` (a ten-seat table under one 1920x1080 camera shows cards about 72 px wide;
cameras that each see a few seats show them larger, and larger cards read surer:
``models/read_rate_by_width.json``).

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

Several cameras, each with its own name, source, card width and zones; a seat belongs to one camera::

    [[cameras]]
    name = "north"
    source = "rtsp://10.0.0.21/stream1"
    card_width = 118
    [[cameras.zones]]
    seat = 1
    polygon = [[200, 500], [700, 500], [700, 900], [200, 900]]

    [[cameras]]
    name = "south"
    ...

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

    def off_frame(self, width: int, height: int) -> float:
        """The share of the zone's area outside a frame ``width`` x ``height`` pixels: 0 when it all
        lies in the frame, 1 when none of it does (a polygon given in another camera's pixels).

        >>> z = SeatZone(seat=1, polygon=[[1800, 100], [2000, 100], [2000, 300], [1800, 300]])
        >>> z.off_frame(1920, 1080), z.off_frame(3840, 2160), z.off_frame(1280, 720)
        (0.4, 0.0, 1.0)
        """
        def area(pts: list[tuple[float, float]]) -> float:
            return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]))) / 2

        def clip(pts: list[tuple[float, float]], axis: int, bound: float, keep_below: bool):
            out: list[tuple[float, float]] = []
            for a, b in zip(pts, pts[1:] + pts[:1]):
                a_in, b_in = (a[axis] <= bound) == keep_below, (b[axis] <= bound) == keep_below
                if a_in:
                    out.append(a)
                if a_in != b_in:  # the edge crosses the bound
                    t = (bound - a[axis]) / (b[axis] - a[axis])
                    out.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
            return out

        pts = [(float(x), float(y)) for x, y in self.polygon]
        whole = area(pts)
        if whole == 0:
            return 0.0
        for axis, bound, below in ((0, 0.0, False), (0, width, True), (1, 0.0, False), (1, height, True)):
            pts = clip(pts, axis, float(bound), below)
            if not pts:
                return 1.0
        return max(0.0, 1.0 - area(pts) / whole)

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

    name: str = Field(default="camera", min_length=1, max_length=32, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    """What the operator and surveillance call it (alerts, ``cardroom vision check --camera``): letters,
    digits, ``_``, ``.`` and ``-``. Several ``[[cameras]]`` each need their own; default ``camera``
    for a lone ``[camera]``, ``camera-N`` for the N-th of ``[[cameras]]``."""
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


OFF_FRAME_SAID = 0.05
"""The share of a seat zone outside the camera's frame from which ``vision calibrate`` names it."""


def zones_off_frame(camera: CameraConfig, width: int, height: int,
                    least: float = OFF_FRAME_SAID) -> list[tuple[int, float, str]]:
    """The seats of ``camera`` whose zone lies ``least`` or more outside its ``width`` x ``height``
    frame: ``(seat, share outside, one line for the installer)``. A zone given in another camera's
    pixels (easily done with several ``[[cameras]]``) lies all outside, and its seat is never judged.

    >>> zone = SeatZone(seat=7, polygon=[[2000, 10], [2300, 10], [2300, 90], [2000, 90]])
    >>> cam = CameraConfig(source="0", zones=[zone])
    >>> zones_off_frame(cam, 1920, 1080)[0][:2], zones_off_frame(cam, 2150, 1080)[0][:2]
    ((7, 1.0), (7, 0.5))
    >>> print(zones_off_frame(cam, 1920, 1080)[0][2][:74])
    seat 7: all of its zone lies outside camera camera's 1920x1080 frame: that
    """
    out = []
    for z in sorted(camera.zones, key=lambda z: z.seat):
        share = z.off_frame(width, height)
        if share < least:
            continue
        where = "all of its zone lies" if share >= 0.999 else f"{share:.0%} of its zone lies"
        what = "that seat is never judged" if share >= 0.999 else "cards there are not seen"
        out.append((z.seat, share, f"seat {z.seat}: {where} outside camera {camera.name}'s {width}x{height} frame: "
                                   f"{what}; check its polygon (in this camera's own pixels)"))
    return out


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


def cameras_in(data: dict, path: str | pathlib.Path) -> list[tuple[str, CameraConfig]]:
    """The cameras of a parsed table file ``data`` (``path`` names it in errors), each with the key
    it stands at (``camera``, or ``cameras[N]``): the one ``[camera]`` section, or every
    ``[[cameras]]`` entry, in the file's order. A ``[game] variant`` key, when present, sets the
    variant of a camera that names none.

    :raises ConfigError: naming the file, the key and the reason: no camera, both forms, a camera
        that does not validate, two cameras of one name, a seat in two cameras' zones.
    """
    one, many = data.get("camera"), data.get("cameras")
    if one is not None and many is not None:
        raise ConfigError(f"{path}: cameras: use [camera] for one camera or [[cameras]] for several, not both")
    if one is None and many is None:
        raise ConfigError(f"{path}: no [camera] section (nor [[cameras]])")
    if one is not None:
        if not isinstance(one, dict):
            raise ConfigError(f"{path}: camera: must be a table ([camera])")
        sections = [("camera", dict(one))]
    else:
        if not isinstance(many, list) or not many or not all(isinstance(c, dict) for c in many):
            raise ConfigError(f"{path}: cameras: must be one or more [[cameras]] tables")
        sections = [(f"cameras[{i}]", {"name": f"camera-{i + 1}", **c}) for i, c in enumerate(many)]
    game = data.get("game")
    variant = game.get("variant") if isinstance(game, dict) else None
    out: list[tuple[str, CameraConfig]] = []
    names: dict[str, str] = {}
    seats: dict[int, str] = {}
    for key, section in sections:
        if "variant" not in section and isinstance(variant, str):
            section["variant"] = variant
        try:
            cam = CameraConfig.model_validate(section)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join([key, *(str(p) for p in err["loc"])])
            raise ConfigError(f"{path}: {where}: {err['msg']}") from None
        if cam.name in names:
            raise ConfigError(f"{path}: {key}.name: {cam.name!r} is already the name of {names[cam.name]}")
        names[cam.name] = key
        for z in cam.zones:
            if z.seat in seats:
                raise ConfigError(f"{path}: {key}.zones: seat {z.seat} already has a zone in {seats[z.seat]}: "
                                  "a seat belongs to one camera")
            seats[z.seat] = f"{key} ({cam.name!r})"
        out.append((key, cam))
    return out


def load_cameras(path: str | pathlib.Path) -> list[tuple[str, CameraConfig]]:
    """Read the cameras of a TOML table file (:func:`cameras_in`), each with its key.

    :raises ConfigError: naming the file, the key and the reason.
    """
    path = pathlib.Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return cameras_in(data, path)


def pick_camera(cameras: list[tuple[str, CameraConfig]], name: str | None,
                path: str | pathlib.Path) -> tuple[str, CameraConfig]:
    """The camera called ``name`` of a file's ``cameras`` (:func:`load_cameras`), or its only one
    when ``name`` is ``None``.

    :raises ConfigError: no camera of that name, or several and none named (the error lists them).
    """
    names = ", ".join(c.name for _, c in cameras)
    if name is not None:
        for key, cam in cameras:
            if cam.name == name:
                return key, cam
        raise ConfigError(f"{path}: no camera named {name!r} (cameras: {names})")
    if len(cameras) > 1:
        raise ConfigError(f"{path}: {len(cameras)} cameras ({names}): say which (--camera NAME)")
    return cameras[0]


def load_camera_config(path: str | pathlib.Path, name: str | None = None) -> CameraConfig:
    """The camera of a TOML table file: its one ``[camera]`` or ``[[cameras]]`` entry, or the one
    called ``name`` (:func:`pick_camera`).

    :raises ConfigError: naming the file, the key and the reason.
    """
    return pick_camera(load_cameras(path), name, path)[1]
