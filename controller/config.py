"""The table configuration (``config/table.toml``), validated with pydantic once, at start.

A bad value is refused with one line naming the file, the dotted key and the reason::

    config/table.toml: stakes.big_blind: must not be less than the small blind (got 1)

Role tokens (dealer, surveillance, broadcast) come from the file or, overriding it, from the
environment (``CARDROOM_DEALER_TOKEN``, ``CARDROOM_SURVEILLANCE_TOKEN``,
``CARDROOM_BROADCAST_TOKEN``). There is no default secret: outside demo mode (``demo = true``) a
missing, short or placeholder token is refused; in demo mode missing ones are generated.

The ``[camera]`` section (or several ``[[cameras]]``) belongs to ``vision/`` (``vision/config.py``
validates it); here it is kept as raw tables. Relative paths (database, decks) are resolved against
the folder the controller is started from (``base_dir``).

>>> cfg = TableConfig.model_validate({
...     "table": {"id": "T1", "seats": 6, "variant": "NT", "demo": True},
...     "stakes": {"small_blind": 1, "big_blind": 2}, "chips": {"denominations": [1, 5]}})
>>> cfg.variant.name, cfg.stakes_for(3).blinds_or_straddles
("No-limit Hold'em", (1, 2, 0))
"""

from __future__ import annotations

import enum
import os
import pathlib
import re
import secrets
import tomllib
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from controller.hand import Stakes
from controller.variants import VARIANTS, Family, Structure, Variant, VariantError, variant_for_code

TOKEN_ENV = {
    "dealer": "CARDROOM_DEALER_TOKEN",
    "surveillance": "CARDROOM_SURVEILLANCE_TOKEN",
    "broadcast": "CARDROOM_BROADCAST_TOKEN",
}
"""Environment variables that override the role tokens of the file."""
MIN_TOKEN_LENGTH = 16
_PLACEHOLDERS = {"changethis", "changeme", "secret", "password", "token", "dealer", "surveillance",
                 "broadcast", "demo", "test"}


class ConfigError(ValueError):
    """A configuration that cannot be used. ``str(error)`` is ``FILE: KEY: REASON`` on one line.

    :ivar file: the file name as given.
    :ivar key: the dotted key (``stakes.big_blind``), or ``line N`` for malformed TOML.
    :ivar reason: what is wrong.
    """

    def __init__(self, file: str, key: str, reason: str) -> None:
        self.file, self.key, self.reason = file, key, reason
        super().__init__(f"{file}: {key}: {reason}" if key else f"{file}: {reason}")


class _Bad(ValueError):
    """A cross-field problem found after parsing: the dotted key and the reason."""

    def __init__(self, key: str, reason: str) -> None:
        self.key, self.reason = key, reason
        super().__init__(f"{key}: {reason}")


class SeeCalledHand(enum.StrEnum):
    """R10: who may ask to see a called hand at showdown (house option)."""

    TDA = "tda"
    """TDA: a caller of a river bet may see the last aggressor's hand if he kept or showed his cards."""
    NONE = "none"
    """No player may ask."""
    ANY_DEALT_IN = "any_dealt_in"
    """Any player dealt in (Robert's alternative)."""
    STILL_IN_ON_TURN = "still_in_on_turn"
    """Only players still in on the turn (fifth street in stud)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class TableSection(_Model):
    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    """Table identifier (letters, digits, ``_.-``): recorded in every event."""
    seats: int = Field(ge=2, le=10)
    variant: str
    """PHH code (``NT``, ``PO``, ``FO/8``, ``F7S``, ``F7S/8``, ``FR``...) or name (``No-limit Hold'em``)."""
    mode: Literal["cash", "tournament"] = "cash"
    demo: bool = False
    """Demo mode: generated role tokens are allowed. Never on a real table."""
    database: str = "var/table.db"
    """The event log (SQLite file)."""
    durability: Literal["full", "normal"] = "full"
    """``full``: every commit (one per dealer command, reader batch or camera frame) is fsynced
    before anyone is told of its events (survives a power cut). ``normal``: SQLite WAL without the
    fsync: survives a crash of the controller but can lose the last commits on a power cut; only
    with a UPS and when the disk's fsync is too slow."""


class StakesSection(_Model):
    small_blind: int = Field(0, ge=0)
    big_blind: int = Field(0, ge=0)
    ante: int = Field(0, ge=0)
    """Ante from every player."""
    big_blind_ante: int = Field(0, ge=0)
    """One ante for the table, posted by the big blind: dead money in the main pot."""
    bring_in: int = Field(0, ge=0)
    """Stud bring-in."""
    small_bet: int = Field(0, ge=0)
    """Fixed-limit small bet; in stud also the completion."""
    big_bet: int = Field(0, ge=0)
    """Fixed-limit big bet."""
    min_bet: int | None = Field(None, gt=0)
    """No-limit and pot-limit minimum bet (default: the big blind; in stud the small bet)."""


class ChipsSection(_Model):
    denominations: list[int] = Field(min_length=1)
    """Chip values in play, smallest first. Pots split down to the smallest (R11)."""

    @field_validator("denominations")
    @classmethod
    def _sorted_positive(cls, v: list[int]) -> list[int]:
        if any(d <= 0 for d in v):
            raise ValueError(f"chip values must be positive (got {v})")
        if any(a >= b for a, b in zip(v, v[1:])):
            raise ValueError(f"must be in increasing order without repeats (got {v})")
        return v


class HouseSection(_Model):
    see_called_hand: SeeCalledHand = SeeCalledHand.TDA
    """R10: who may ask to see a called hand."""
    enforce_show_order: bool = True
    """R8: refuse a show out of order (true) or only warn (false)."""
    dispute_window_seconds: float = Field(60.0, ge=0)
    """R14: when the hand ends at a break, how long after the award a correction is accepted (the
    next hand's start ends the window sooner)."""

    @field_validator("see_called_hand", mode="before")
    @classmethod
    def _r10(cls, v: Any) -> Any:
        if isinstance(v, str) and v not in {o.value for o in SeeCalledHand}:
            raise ValueError(f"must be one of {', '.join(o.value for o in SeeCalledHand)} (got {v!r})")
        return SeeCalledHand(v) if isinstance(v, str) else v


class ReaderSection(_Model):
    port: str = "sim"
    """Serial device (``/dev/ttyUSB0``), pyserial URL (``socket://host:port``, ``loop://``) or ``sim``."""
    decks: list[str] = Field(default_factory=list)
    """Deck registration CSV files (UID to card)."""
    leave_after: float = Field(2.0, gt=0, le=60)
    """Seconds without a read before a card counts as gone."""

    @field_validator("port")
    @classmethod
    def _port(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must be a device path, a pyserial URL or 'sim'")
        return v


class BroadcastSection(_Model):
    delay_seconds: float = Field(1800.0, ge=0)
    """Secure delay: broadcast sees hole cards only this long after the event."""


class TokensSection(_Model):
    dealer: SecretStr | None = None
    surveillance: SecretStr | None = None
    broadcast: SecretStr | None = None


class ServerSection(_Model):
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)


class TableConfig(_Model):
    """The whole table file, validated. Build it with :func:`load_config`."""

    table: TableSection
    stakes: StakesSection = StakesSection()
    chips: ChipsSection
    house: HouseSection = HouseSection()
    reader: ReaderSection = ReaderSection()
    broadcast: BroadcastSection = BroadcastSection()
    tokens: TokensSection = TokensSection()
    server: ServerSection = ServerSection()
    camera: dict[str, Any] | None = None
    """Raw ``[camera]`` table, validated by ``vision.config`` (:meth:`camera_data`)."""
    cameras: list[dict[str, Any]] | None = None
    """Raw ``[[cameras]]`` tables (several cameras, each seeing some of the seats), validated by
    ``vision.config``."""
    generated_tokens: tuple[str, ...] = ()
    """Roles whose token was generated (demo mode only): show them to the operator."""

    @property
    def variant(self) -> Variant:
        return _variant(self.table.variant)

    @property
    def has_cameras(self) -> bool:
        """Whether the file configures a camera (``[camera]`` or ``[[cameras]]``)."""
        return self.camera is not None or self.cameras is not None

    def camera_data(self) -> dict[str, Any]:
        """The camera sections as ``vision.config.cameras_in`` reads them."""
        return {k: v for k, v in (("camera", self.camera), ("cameras", self.cameras)) if v is not None}

    @property
    def smallest_chip(self) -> int:
        return self.chips.denominations[0]

    def token(self, role: str) -> str:
        """The token of a role (``dealer``, ``surveillance``, ``broadcast``)."""
        secret = getattr(self.tokens, role)
        if secret is None:  # only possible on a model built without load_config's checks
            raise KeyError(f"no token for role {role!r}")
        return str(secret.get_secret_value())

    def database_path(self, base_dir: str | os.PathLike[str] | None = None) -> pathlib.Path:
        return _resolve(self.table.database, base_dir)

    def deck_paths(self, base_dir: str | os.PathLike[str] | None = None) -> list[pathlib.Path]:
        return [_resolve(d, base_dir) for d in self.reader.decks]

    def stakes_for(self, players: int) -> Stakes:
        """Forced bets for a hand of ``players`` players, in PHH order.

        Flop games: the small blind on the first player (first seat left of the button), the big
        blind on the second; an ante from everyone counts toward side pots (ante trimming), a
        big-blind ante is one dead entry on the big blind. Stud: antes and the bring-in.

        :raises ValueError: ``players`` not between 2 and the number of seats.
        """
        if not 2 <= players <= self.table.seats:
            raise ValueError(f"players must be 2 to {self.table.seats}, got {players}")
        return build_stakes(self.variant, self.stakes, players)

    def game(self) -> dict[str, Any]:
        """The game as the table records it in its log (``table_configured``): everything needed
        to replay the log without this file."""
        return {
            "table_id": self.table.id,
            "variant": self.variant.code,
            "seats": self.table.seats,
            "tournament": self.table.mode == "tournament",
            "stakes": self.stakes.model_dump(),
            "smallest_chip": self.smallest_chip,
            "see_hand": self.house.see_called_hand.value,
            "enforce_show_order": self.house.enforce_show_order,
            "dispute_window_s": self.house.dispute_window_seconds,
        }

    @model_validator(mode="after")
    def _cross_checks(self) -> TableConfig:
        _cross_check(self)
        return self


def build_stakes(v: Variant, s: StakesSection, players: int) -> Stakes:
    """Forced bets for ``players`` players in PHH order (see :meth:`TableConfig.stakes_for`)."""
    rest = (0,) * (players - 2)
    if v.is_stud:
        return Stakes((s.ante,) * players, (0,) * players, s.bring_in, s.small_bet, s.big_bet,
                      min_bet=s.min_bet or s.small_bet, ante_trimming=True)
    blinds = (s.small_blind, s.big_blind) + rest
    if s.big_blind_ante:
        antes, trimming = (0, s.big_blind_ante) + rest, False
    else:
        antes, trimming = (s.ante,) * players, True
    if v.structure is Structure.FIXED_LIMIT:
        return Stakes(antes, blinds, 0, s.small_bet, s.big_bet, min_bet=s.small_bet,
                      ante_trimming=trimming)
    return Stakes(antes, blinds, min_bet=s.min_bet or s.big_blind, ante_trimming=trimming)


def _resolve(p: str, base_dir: str | os.PathLike[str] | None) -> pathlib.Path:
    path = pathlib.Path(p).expanduser()
    return path if path.is_absolute() else pathlib.Path(base_dir or os.getcwd()) / path


_NAMES = {v.name.lower(): code for code, v in VARIANTS.items()}


def _variant(text: str) -> Variant:
    code = _NAMES.get(text.strip().lower(), text)
    return variant_for_code(code)


def _cross_check(cfg: TableConfig) -> None:
    """Checks across fields; raise :class:`_Bad` with the key of the offending value."""
    try:
        v = _variant(cfg.table.variant)
    except VariantError as exc:
        raise _Bad("table.variant", str(exc)) from None
    s = cfg.stakes
    if v.family is Family.STUD:
        for key in ("small_blind", "big_blind", "big_blind_ante"):
            if getattr(s, key):
                raise _Bad(f"stakes.{key}", f"{v.name} has no blinds: use ante and bring_in")
        if s.bring_in <= 0:
            raise _Bad("stakes.bring_in", f"{v.name} needs a bring-in greater than 0")
        if s.small_bet <= 0:
            raise _Bad("stakes.small_bet", f"{v.name} needs a small bet (the completion) greater than 0")
        if s.bring_in > s.small_bet:
            raise _Bad("stakes.bring_in", f"must not exceed the small bet {s.small_bet} (got {s.bring_in})")
    else:
        if s.big_blind <= 0:
            raise _Bad("stakes.big_blind", f"{v.name} needs a big blind greater than 0")
        if s.small_blind <= 0:
            raise _Bad("stakes.small_blind", f"{v.name} needs a small blind greater than 0")
        if s.big_blind < s.small_blind:
            raise _Bad("stakes.big_blind", f"must not be less than the small blind {s.small_blind} "
                                           f"(got {s.big_blind})")
        if s.bring_in:
            raise _Bad("stakes.bring_in", f"{v.name} has no bring-in")
        if s.ante and s.big_blind_ante:
            raise _Bad("stakes.big_blind_ante", "use either ante (every player) or big_blind_ante, not both")
    if v.structure is Structure.FIXED_LIMIT:
        if s.small_bet <= 0:
            raise _Bad("stakes.small_bet", f"{v.name} needs a small bet greater than 0")
        if s.big_bet < s.small_bet:
            raise _Bad("stakes.big_bet", f"{v.name} needs a big bet of at least the small bet "
                                         f"{s.small_bet} (got {s.big_bet})")
        if s.min_bet is not None:
            raise _Bad("stakes.min_bet", "fixed-limit bets are the small and big bets: remove min_bet")
    elif v.family is not Family.STUD:
        if s.small_bet or s.big_bet:
            raise _Bad("stakes.small_bet" if s.small_bet else "stakes.big_bet",
                       f"only fixed-limit games have small and big bets ({v.name})")
        if s.min_bet is not None and s.min_bet < s.big_blind:
            raise _Bad("stakes.min_bet", f"must be at least the big blind {s.big_blind} (got {s.min_bet})")
    chip = cfg.chips.denominations[0]
    for key in ("small_blind", "big_blind", "ante", "big_blind_ante", "bring_in", "small_bet", "big_bet",
                "min_bet"):
        value = getattr(s, key)
        if value and value % chip:
            raise _Bad(f"stakes.{key}", f"must be a multiple of the smallest chip {chip} (got {value})")


def _check_tokens(data: dict[str, Any], env: Mapping[str, str]) -> tuple[str, ...]:
    """Apply environment overrides, generate demo tokens, refuse weak or missing ones.

    Mutates ``data["tokens"]``; returns the roles whose token was generated.
    """
    tokens = data.get("tokens")
    if tokens is None:
        tokens = data["tokens"] = {}
    if not isinstance(tokens, dict):
        raise _Bad("tokens", "must be a table of role = token")
    table = data.get("table") if isinstance(data.get("table"), dict) else {}
    demo = table.get("demo", False) is True
    generated = []
    seen: dict[str, str] = {}
    for role, var in TOKEN_ENV.items():
        if env.get(var):
            tokens[role] = env[var]
            where = f"environment {var}"
        else:
            where = f"tokens.{role}"
        value = tokens.get(role)
        if value is None:
            if not demo:
                raise _Bad(f"tokens.{role}", f"missing: set it here or in the environment ({var}); "
                                            "there is no default secret outside demo mode")
            tokens[role] = secrets.token_urlsafe(24)
            generated.append(role)
            continue
        if not isinstance(value, str):
            raise _Bad(f"tokens.{role}", f"must be a string (got {type(value).__name__})")
        if not demo:
            if len(value) < MIN_TOKEN_LENGTH:
                raise _Bad(f"tokens.{role}", f"too short: at least {MIN_TOKEN_LENGTH} characters "
                                            f"outside demo mode (from {where})")
            if value.lower() in _PLACEHOLDERS:
                raise _Bad(f"tokens.{role}", f"a placeholder, not a secret (from {where})")
        if value in seen:
            raise _Bad(f"tokens.{role}", f"the same as the {seen[value]} token: each role needs its own")
        seen[value] = role
    return tuple(generated)


def _key_of(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    for p in loc:
        if isinstance(p, int):
            parts[-1:] = [f"{parts[-1]}[{p}]"] if parts else [f"[{p}]"]
        else:
            parts.append(str(p))
    return ".".join(parts)


def _reason(err: Mapping[str, Any]) -> str:
    kind, msg = err.get("type", ""), str(err.get("msg", ""))
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "missing"
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    else:
        msg = msg.replace("Input should be", "must be", 1)
        msg = msg[:1].lower() + msg[1:]
        if "input" in err and not isinstance(err["input"], dict):
            msg += f" (got {err['input']!r})"
    return msg


def validate_config(data: Mapping[str, Any], *, file: str = "<config>",
                    env: Mapping[str, str] | None = None) -> TableConfig:
    """Validate a parsed table file (a dict as TOML gives it).

    :raises ConfigError: naming ``file``, the dotted key and the reason.
    """
    env = os.environ if env is None else env
    raw = dict(data)
    try:
        raw["tokens"] = dict(raw["tokens"]) if isinstance(raw.get("tokens"), dict) else raw.get("tokens")
        generated = _check_tokens(raw, env)
        raw["generated_tokens"] = generated
        return TableConfig.model_validate(raw)
    except _Bad as bad:
        raise ConfigError(file, bad.key, bad.reason) from None
    except ValidationError as exc:
        errors = exc.errors()
        first = errors[0]
        ctx = first.get("ctx") or {}
        inner = ctx.get("error")
        if isinstance(inner, _Bad):
            raise ConfigError(file, inner.key, inner.reason) from None
        raise ConfigError(file, _key_of(tuple(first["loc"])) or "(top level)", _reason(first)) from None


def load_config(path: str | os.PathLike[str], *, env: Mapping[str, str] | None = None,
                check_files: bool = True, base_dir: str | os.PathLike[str] | None = None) -> TableConfig:
    """Read and validate a table file.

    :param env: environment for token overrides (default ``os.environ``).
    :param check_files: also refuse deck files that do not exist (paths relative to ``base_dir``,
        default the current folder).
    :raises ConfigError: one line, ``FILE: KEY: REASON`` (``FILE: line N: ...`` for bad TOML).
    """
    name = str(path)
    try:
        text = pathlib.Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise ConfigError(name, "", f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(name, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        where = f"line {m.group(1)}" if m else "TOML"
        raise ConfigError(name, where, f"malformed TOML: {reason}" + (f" (column {m.group(2)})" if m else "")) from None
    cfg = validate_config(data, file=name, env=env)
    if check_files:
        for i, deck in enumerate(cfg.deck_paths(base_dir)):
            if not deck.is_file():
                raise ConfigError(name, f"reader.decks[{i}]", f"no such file: {cfg.reader.decks[i]}")
    return cfg


__all__ = ["TOKEN_ENV", "ConfigError", "SeeCalledHand", "TableConfig", "load_config", "validate_config"]
