"""PHH import: real tournament hands (golden), the ``cardroom showdown`` command, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest

from controller import phh
from controller.cli import main
from controller.showdown import settle

SUPPORTED = {"NT", "FT", "PO", "FO/8", "F7S", "F7S/8", "FR"}


def _golden_files(shared):
    return sorted((shared / "phh").rglob("*.phh"))


def test_golden_every_supported_real_hand_reproduces_finishing_stacks(shared_dir):
    checked = 0
    for path in _golden_files(shared_dir):
        if tomllib.loads(path.read_text())["variant"] not in SUPPORTED:
            continue
        [hand] = phh.load(path)
        result = settle(phh.record_of(hand))
        assert list(result.final_stacks) == list(hand.finishing_stacks), path.name
        checked += 1
    assert checked >= 68  # 11 NT, 7 FT, 7 PO, 14 FO/8, 13 F7S, 7 F7S/8, 9 FR


def test_draw_games_are_refused_with_the_variant_named(shared_dir):
    path = next(p for p in _golden_files(shared_dir) if "F2L3D" in p.read_text())
    with pytest.raises(phh.PhhError, match="unsupported variant 'F2L3D'"):
        phh.load(path)


def test_phhs_holds_several_hands(tmp_path):
    text = """
[first]
variant = 'NT'
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [100, 100]
actions = ['d dh p1 AsAh', 'd dh p2 KsKh', 'p2 f']

[second]
variant = 'NT'
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [100, 100]
actions = ['d dh p1 AsAh', 'd dh p2 KsKh', 'p2 cbr 100', 'p1 cc', 'd db 2c3d4h', 'd db 9s', 'd db Td']
"""
    hands = phh.loads(text, "two.phhs")
    assert [h.source for h in hands] == ["two.phhs[first]", "two.phhs[second]"]
    # heads-up: p2 is the button and posts the small blind; p1 posts the big blind
    assert settle(phh.record_of(hands[0])).final_stacks == (101, 99)
    assert settle(phh.record_of(hands[1])).final_stacks == (200, 0)


def run_cli(args, capsys):
    rc = main(["showdown", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_command_text_names_first_shower_and_reason(shared_dir, capsys):
    path = shared_dir / "phh" / "wsop-2023" / "43" / "5" / "00-02-07.phh"
    rc, out, err = run_cli([str(path)], capsys)
    assert rc == 0, err
    assert "p4 shows first: last aggressor on the river (R8)" in out
    assert "Main pot: 2,630,000, eligible p2 p4" in out
    assert "Final stacks: p1 7,340,000, p2 3,775,000" in out


def test_command_json_shape(shared_dir, capsys):
    path = shared_dir / "phh" / "wsop-2023" / "43" / "5" / "02-14-32.phh"
    rc, out, err = run_cli([str(path), "--json"], capsys)
    assert rc == 0, err
    obj = json.loads(out)
    assert set(obj) == {"show_order", "hands", "pots", "final_stacks"}
    assert obj["show_order"] == [1, 3]
    hand = obj["hands"][0]
    assert set(hand) == {"player", "cards", "high", "low"}
    assert set(hand["high"]) == {"category", "best_five", "text"}
    assert hand["low"]["text"] == "7-6-5-4-A low"
    pot = obj["pots"][0]
    assert set(pot) == {"amount", "eligible", "awards"}
    assert {a["half"] for a in pot["awards"]} == {"high", "low"}
    assert set(pot["awards"][0]) == {"player", "amount", "half"}
    assert obj["final_stacks"] == [4575000, 1700000, 14750000, 5900000, 2775000]


def test_command_folder_one_object_per_line_with_file(shared_dir, tmp_path, capsys):
    src = shared_dir / "phh" / "wsop-2023" / "43" / "5"
    for name in ["00-02-07.phh", "00-08-38.phh", "02-14-32.phh"]:
        (tmp_path / name).write_text((src / name).read_text())
    rc, out, err = run_cli([str(tmp_path), "--json"], capsys)
    assert rc == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [pathlib_name(o["file"]) for o in lines] == ["00-02-07.phh", "00-08-38.phh", "02-14-32.phh"]
    assert lines[1]["show_order"] == [] and lines[1]["hands"] == []  # uncontested (R9)


def pathlib_name(p):
    return p.rsplit("/", 1)[-1]


BASE = """variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
"""


@pytest.mark.parametrize(
    "body, fragment",
    [
        (BASE.replace("'NT'", "'XX'") + "actions = []\n", "unknown or unsupported variant 'XX'"),
        (BASE + "actions = ['d dh p1 AsAs']\n", "action 1 'd dh p1 AsAs': duplicate card As"),
        (BASE + "actions = ['d dh p1 AsKs', 'd dh p2 AsQd']\n", "action 2 'd dh p2 AsQd': duplicate card As"),
        (BASE + "actions = ['d dh p1 AsKsQs']\n", "p1 gets 2 hole card(s) on preflop, not 3"),
        (BASE + "actions = ['d dh p1 AsKs', 'd dh p2 7c7d', 'd dh p3 2c3d', 'p1 f']\n",
         "action 4 'p1 f': p1 cannot fold: out of turn, it is p3's turn"),
        (BASE + "actions = ['d dh p1 AsKs', 'd dh p2 7c7d', 'd dh p3 2c3d', 'p3 cbr 3']\n",
         "p3 raises to 3, below the minimum 4"),
        (BASE + "actions = ['d dh p1 AsKs', 'd dh p2 7c7d', 'd dh p3 2c3d', 'p3 cbr 500']\n",
         "p3 raises to 500, above the stack 100"),
        (BASE.replace("[100, 100, 100]", "[100, -5, 100]") + "actions = []\n",
         "starting stack of p2 is -5"),
        ("variant = 'NT'\nstarting_stacks = [1, 2\n", "malformed TOML"),
        (BASE + "actions = ['d dh p1 AsKs', 'd dh p2 7c7d', 'd dh p3 2c3d', 'p3 cc']\n",
         "the hand is not finished"),
        (BASE + "actions = ['d dh p1 AsK', 'd dh p2 7c7d']\n", "odd number of characters"),
        (BASE + "actions = ['d dh p1 AsKx']\n", "bad suit 'x'"),
    ],
)
def test_bad_input_exit_2_one_line_naming_file_action_problem(tmp_path, capsys, body, fragment):
    path = tmp_path / "bad.phh"
    path.write_text(body)
    rc, out, err = run_cli([str(path), "--json"], capsys)
    assert rc == 2
    assert out == ""  # never a partial or a wrong award
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(str(path))
    assert fragment in lines[0]


def test_console_script_entry_point_runs(shared_dir):
    path = shared_dir / "phh" / "wsop-2023" / "43" / "5" / "00-02-07.phh"
    proc = subprocess.run([sys.executable, "-m", "controller", "showdown", str(path), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["show_order"] == [4, 2]
