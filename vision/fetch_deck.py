"""Fetch the CC0 deck of npm ``@letele/playing-cards`` into ``var/decks/letele`` (training/bench time only).

    python -m vision.fetch_deck

Needs ``npm``, ``node`` and ``rsvg-convert`` (Debian: librsvg2-bin). The package ships React
components; they are rendered to static SVG with react-dom/server and rasterised to 240x336 PNG.
Nothing at run time ever calls this.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]
EXPORT = """
import * as deck from './node_modules/@letele/playing-cards/dist/index.esm.js';
import * as React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import fs from 'fs';
fs.mkdirSync('svg', { recursive: true });
for (const [name, C] of Object.entries(deck)) {
  fs.writeFileSync(`svg/${name}.svg`, renderToStaticMarkup(React.createElement(C)));
}
"""


def fetch(dest: pathlib.Path = REPO / "var" / "decks" / "letele") -> pathlib.Path:
    for tool in ("npm", "node", "rsvg-convert"):
        if shutil.which(tool) is None:
            raise SystemExit(f"fetch_deck: {tool} not found")
    with tempfile.TemporaryDirectory() as tmp:
        t = pathlib.Path(tmp)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", tmp,
                        "@letele/playing-cards@0.1.0", "react@18", "react-dom@18", "@babel/runtime"],
                       check=True, capture_output=True)
        (t / "export.mjs").write_text(EXPORT)
        subprocess.run(["node", "export.mjs"], cwd=tmp, check=True)
        dest.mkdir(parents=True, exist_ok=True)
        for svg in sorted((t / "svg").glob("*.svg")):
            subprocess.run(["rsvg-convert", "-w", "240", "-h", "336", str(svg), "-o",
                            str(dest / (svg.stem + ".png"))], check=True)
    return dest


if __name__ == "__main__":
    print(fetch())
    sys.exit(0)
