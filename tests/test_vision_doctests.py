"""The examples in the vision package's docstrings run as tests (``testpaths`` collects doctests only
from ``tests`` and ``controller``, as ``test_bridge_codec`` does for the bridge's)."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["detect", "fetch_deck", "focus", "pips", "recognize", "render", "resolution",
                                    "verdict", "train", "train_suit"])
def test_doctests(module: str) -> None:
    mod = importlib.import_module(f"vision.{module}")
    result = doctest.testmod(mod)
    assert result.attempted > 0
    assert result.failed == 0
