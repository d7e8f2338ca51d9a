"""Regenerate tests/data/pokerkit-<variant>.phhs.gz: random hands played by PokerKit, with its answers.

Each hand is PokerKit's own PHH export of a random hand (tests/pokerkit_oracle.py), plus
``finishing_stacks``: PokerKit's final stacks when it replays that PHH. The differential test replays
the same PHH through the engine and compares. Deterministic: seeds 0..N-1 per variant, with the
PokerKit version pinned in pyproject.toml (the header records it).

    python tools/make_pokerkit_corpus.py [--hands 2000] [VARIANT ...]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import gzip
import pathlib
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import pokerkit_oracle  # noqa: E402


def corpus_path(code: str) -> pathlib.Path:
    return ROOT / "tests" / "data" / f"pokerkit-{code.replace('/', '')}.phhs.gz"


def hand_block(code: str, seed: int) -> str:
    text, stacks, _ = pokerkit_oracle.random_hand(code, seed)
    fields = tomllib.loads(text)  # check it parses
    assert fields["variant"] == code
    return f"[seed-{seed}]\n{text.rstrip()}\nfinishing_stacks = {list(stacks)}\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("variants", nargs="*", default=list(pokerkit_oracle.CODES))
    args = ap.parse_args()
    for code in args.variants:
        blocks = [f"# PokerKit {importlib.metadata.version('pokerkit')} "
                  f"random hands, variant {code}, seeds 0..{args.hands - 1}\n"]
        for seed in range(args.hands):
            blocks.append(hand_block(code, seed))
        path = corpus_path(code)
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as f:
            f.write("\n".join(blocks))
        print(f"{code}: {args.hands} hands -> {path.relative_to(ROOT)} ({path.stat().st_size // 1024} KiB)",
              flush=True)


if __name__ == "__main__":
    main()
