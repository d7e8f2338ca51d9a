"""The ``cardroom`` command.

Each package registers its own subcommands through ``register(subparsers)`` in its ``cli`` module
(``controller.showdown_cli``, ``firmware_bridge.cli``, ``vision.cli``), so heavy imports (OpenCV,
onnxruntime, pyserial) happen only when their subcommand runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Modules that add subcommands; each has ``register(subparsers) -> None``.
_COMMAND_MODULES = (
    "controller.showdown_cli",
    "firmware_bridge.cli",
    "vision.cli",
    "controller.table_cli",
    "controller.server_cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardroom", description="Showdown controller for live poker tables."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # that package has no commands yet
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        rc = args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return int(rc or 0)


if __name__ == "__main__":
    sys.exit(main())
