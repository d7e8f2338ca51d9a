"""The table configuration: the example file loads; every bad value is refused with file, key, reason."""

from __future__ import annotations

import pathlib
import re
import tomllib
from typing import Any

import pytest
import tomli_w

from controller.config import ConfigError, SeeCalledHand, TableConfig, load_config, validate_config

REPO = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "config" / "table.toml"
TOKENS = {"dealer": "d" * 20 + "-dealer", "surveillance": "s" * 20 + "-surv", "broadcast": "b" * 20 + "-bc"}


def example() -> dict[str, Any]:
    return tomllib.loads(EXAMPLE.read_text())


def write(tmp_path: pathlib.Path, data: dict[str, Any]) -> pathlib.Path:
    path = tmp_path / "table.toml"
    path.write_text(tomli_w.dumps(data))
    return path


def refused(tmp_path: pathlib.Path, data: dict[str, Any], key: str, words: str,
            env: dict[str, str] | None = None) -> ConfigError:
    path = write(tmp_path, data)
    with pytest.raises(ConfigError) as info:
        load_config(path, env=env or {}, base_dir=REPO)
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith(f"{path}: {key}: "), msg
    assert words in msg, msg
    assert info.value.key == key and info.value.file == str(path)
    return info.value


def test_example_file_loads() -> None:
    cfg = load_config(EXAMPLE, env={}, base_dir=REPO)
    assert cfg.table.id == "demo-1" and cfg.table.seats == 9 and cfg.table.mode == "cash"
    assert cfg.variant.code == "NT" and cfg.chips.denominations == [1, 5, 25, 100]
    assert cfg.house.see_called_hand is SeeCalledHand.TDA and cfg.house.enforce_show_order
    assert cfg.broadcast.delay_seconds == 1800 and cfg.reader.port == "sim"
    assert cfg.database_path(REPO) == REPO / "var" / "table.db"
    assert cfg.deck_paths(REPO) == [REPO / "config" / "deck-A.csv"]
    assert (cfg.server.host, cfg.server.port) == ("127.0.0.1", 8000)
    # the [camera] section is kept raw here and validated by vision/config.py
    from vision.config import load_camera_config
    assert cfg.camera is not None and cfg.camera["source"] == "config/demo_feed.mp4"
    assert len(load_camera_config(EXAMPLE).zones) == 10
    assert set(cfg.generated_tokens) == {"dealer", "surveillance", "broadcast"}  # demo mode
    assert len({cfg.token(r) for r in ("dealer", "surveillance", "broadcast")}) == 3
    assert "**" in repr(cfg.tokens) and cfg.token("dealer") not in repr(cfg)


def test_camera_section_is_kept_raw(tmp_path: pathlib.Path) -> None:
    data = example()
    data["camera"] = {"source": "rendered", "zones": [{"seat": 1, "box": [0, 0, 10, 10]}]}
    cfg = load_config(write(tmp_path, data), env={}, base_dir=REPO)
    assert cfg.camera == data["camera"]


@pytest.mark.parametrize("section, key, value, words", [
    ("table", "seats", 11, "less than or equal to 10 (got 11)"),
    ("table", "seats", 1, "greater than or equal to 2 (got 1)"),
    ("table", "seats", "9", "valid integer"),
    ("stakes", "small_blind", -1, "greater than or equal to 0 (got -1)"),
    ("table", "variant", "NLHE-turbo", "unknown or unsupported variant"),
    ("table", "mode", "league", "'cash' or 'tournament'"),
    ("table", "id", "demo table!", "should match pattern"),
    ("house", "see_called_hand", "always", "must be one of tda, none, any_dealt_in, still_in_on_turn"),
    ("house", "dispute_window_seconds", -5, "greater than or equal to 0"),
    ("chips", "denominations", [5, 1, 25], "increasing order"),
    ("chips", "denominations", [0, 5], "positive"),
    ("reader", "leave_after", 0, "greater than 0"),
    ("server", "port", 70000, "less than or equal to 65535"),
    ("broadcast", "delay_seconds", -1, "greater than or equal to 0"),
    ("stakes", "big_blnd", 2, "unknown key"),
])
def test_bad_value_refused(tmp_path: pathlib.Path, section: str, key: str, value: Any, words: str) -> None:
    data = example()
    data[section][key] = value
    refused(tmp_path, data, f"{section}.{key}", words)


def test_big_blind_below_small_blind(tmp_path: pathlib.Path) -> None:
    data = example()
    data["stakes"].update(small_blind=2, big_blind=1)
    refused(tmp_path, data, "stakes.big_blind", "must not be less than the small blind 2 (got 1)")


def test_stake_not_a_multiple_of_the_smallest_chip(tmp_path: pathlib.Path) -> None:
    data = example()
    data["chips"]["denominations"] = [5, 25, 100]
    data["stakes"].update(small_blind=5, big_blind=12)
    refused(tmp_path, data, "stakes.big_blind", "multiple of the smallest chip 5 (got 12)")


def test_stud_needs_bring_in_and_bets(tmp_path: pathlib.Path) -> None:
    data = example()
    data["table"]["variant"] = "F7S"
    data["stakes"] = {"ante": 1, "small_bet": 10, "big_bet": 20}
    refused(tmp_path, data, "stakes.bring_in", "needs a bring-in")
    data["stakes"] = {"ante": 1, "bring_in": 5}
    refused(tmp_path, data, "stakes.small_bet", "needs a small bet")
    data["stakes"] = {"ante": 1, "bring_in": 5, "small_bet": 10}
    refused(tmp_path, data, "stakes.big_bet", "big bet of at least the small bet 10 (got 0)")
    data["stakes"] = {"small_blind": 1, "big_blind": 2, "bring_in": 5, "small_bet": 10, "big_bet": 20}
    refused(tmp_path, data, "stakes.small_blind", "has no blinds")
    data["stakes"] = {"ante": 1, "bring_in": 5, "small_bet": 10, "big_bet": 20}
    cfg = load_config(write(tmp_path, data), env={}, base_dir=REPO)
    s = cfg.stakes_for(7)
    assert s.antes == (1,) * 7 and s.blinds_or_straddles == (0,) * 7 and s.ante_trimming
    assert (s.bring_in, s.small_bet, s.big_bet, s.min_bet) == (5, 10, 20, 10)


def test_flop_games_need_blinds_and_limits(tmp_path: pathlib.Path) -> None:
    data = example()
    data["stakes"] = {"small_blind": 1}
    refused(tmp_path, data, "stakes.big_blind", "needs a big blind")
    data["table"]["variant"] = "Fixed-limit Omaha hi/lo 8-or-better"  # a name works as well as FO/8
    data["stakes"] = {"small_blind": 1, "big_blind": 2}
    refused(tmp_path, data, "stakes.small_bet", "needs a small bet")
    data["stakes"] = {"small_blind": 1, "big_blind": 2, "small_bet": 2, "big_bet": 4}
    cfg = load_config(write(tmp_path, data), env={}, base_dir=REPO)
    assert cfg.variant.code == "FO/8"
    s = cfg.stakes_for(4)
    assert s.blinds_or_straddles == (1, 2, 0, 0) and (s.small_bet, s.big_bet, s.min_bet) == (2, 4, 2)
    data["table"]["variant"] = "NT"
    data["stakes"] = {"small_blind": 1, "big_blind": 2, "big_bet": 4}
    refused(tmp_path, data, "stakes.big_bet", "only fixed-limit")


def test_big_blind_ante_is_dead_money_on_the_big_blind(tmp_path: pathlib.Path) -> None:
    data = example()
    data["stakes"].update(big_blind_ante=2)
    cfg = load_config(write(tmp_path, data), env={}, base_dir=REPO)
    s = cfg.stakes_for(6)
    assert s.antes == (0, 2, 0, 0, 0, 0) and s.blinds_or_straddles == (1, 2, 0, 0, 0, 0)
    assert s.ante_trimming is False and s.min_bet == 2
    data["stakes"].update(ante=1)
    refused(tmp_path, data, "stakes.big_blind_ante", "not both")
    data["stakes"].update(ante=1, big_blind_ante=0)
    s = load_config(write(tmp_path, data), env={}, base_dir=REPO).stakes_for(3)
    assert s.antes == (1, 1, 1) and s.ante_trimming is True
    with pytest.raises(ValueError, match="players must be 2 to 9"):
        cfg.stakes_for(10)


def production(data: dict[str, Any]) -> dict[str, Any]:
    data["table"]["demo"] = False
    data["tokens"] = dict(TOKENS)
    return data


def test_tokens_outside_demo(tmp_path: pathlib.Path) -> None:
    data = production(example())
    cfg = load_config(write(tmp_path, data), env={}, base_dir=REPO)
    assert cfg.token("dealer") == TOKENS["dealer"] and cfg.generated_tokens == ()
    del data["tokens"]["dealer"]
    err = refused(tmp_path, data, "tokens.dealer", "missing")
    assert "CARDROOM_DEALER_TOKEN" in str(err) and "no default secret" in str(err)
    data["tokens"]["dealer"] = "short"
    refused(tmp_path, data, "tokens.dealer", "too short")
    data["tokens"]["dealer"] = TOKENS["surveillance"]
    refused(tmp_path, data, "tokens.surveillance", "the same as the dealer token")


def test_env_tokens_override(tmp_path: pathlib.Path) -> None:
    data = production(example())
    del data["tokens"]["dealer"]
    env = {"CARDROOM_DEALER_TOKEN": "from-the-environment-1234",
           "CARDROOM_BROADCAST_TOKEN": "broadcast-from-env-5678"}
    cfg = load_config(write(tmp_path, data), env=env, base_dir=REPO)
    assert cfg.token("dealer") == env["CARDROOM_DEALER_TOKEN"]
    assert cfg.token("broadcast") == env["CARDROOM_BROADCAST_TOKEN"]  # overrides the file
    assert cfg.token("surveillance") == TOKENS["surveillance"]
    refused(tmp_path, data, "tokens.dealer", "(from environment CARDROOM_DEALER_TOKEN)",
            env={"CARDROOM_DEALER_TOKEN": "abc"})


def test_malformed_toml_names_the_line(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[table]\nid = "x"\nseats = = 9\n')
    with pytest.raises(ConfigError) as info:
        load_config(path, env={})
    assert re.fullmatch(rf"{re.escape(str(path))}: line 3: malformed TOML: .+", str(info.value))


def test_missing_file_and_missing_deck(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.toml")
    data = example()
    data["reader"]["decks"] = ["config/deck-A.csv", "config/deck-Z.csv"]
    refused(tmp_path, data, "reader.decks[1]", "no such file: config/deck-Z.csv")


def test_missing_section(tmp_path: pathlib.Path) -> None:
    data = example()
    del data["chips"]
    refused(tmp_path, data, "chips", "missing")


def test_every_variant_code_and_structure_validates() -> None:
    from controller.variants import VARIANTS
    for code, v in VARIANTS.items():
        if v.is_stud:
            stakes = {"ante": 1, "bring_in": 2, "small_bet": 4, "big_bet": 8}
        elif v.structure.value == "fixed-limit":
            stakes = {"small_blind": 1, "big_blind": 2, "small_bet": 2, "big_bet": 4}
        else:
            stakes = {"small_blind": 1, "big_blind": 2}
        cfg = validate_config({"table": {"id": "t", "seats": 8, "variant": code, "demo": True},
                               "stakes": stakes, "chips": {"denominations": [1]}}, env={})
        assert isinstance(cfg, TableConfig) and cfg.stakes_for(8).antes is not None
