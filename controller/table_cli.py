"""Table commands: ``cardroom audit verify DB``, ``cardroom audit show DB``, ``cardroom history export``.

Each command group is registered by its own function so more can join (``history export``...).
Exit codes of ``audit verify``: 0 intact, 1 tampered or damaged (the first bad row is printed),
2 not an event log, cannot be opened, or the audit key is missing or wrong.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys

from controller.eventlog import EventLog, LogDamaged, LogError, StoredEvent

EXIT_OK = 0
EXIT_TAMPERED = 1
EXIT_UNUSABLE = 2


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the table's command groups to ``cardroom``."""
    register_audit(sub)
    register_history(sub)


def register_history(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    history = sub.add_parser("history", help="hand histories from a table's event log",
                             description="Export the hands of a table's event log as PHH files.")
    hsub = history.add_subparsers(dest="history_command", metavar="ACTION")
    hsub.required = True
    e = hsub.add_parser("export", help="write every finished hand as a .phh file",
                        description="Replay the log and write each pushed (or voided) hand as "
                        "DIR/<table>-<hand>.phh, in PHH, the format PokerKit and other tools read.")
    e.add_argument("db", metavar="DB", help="the event log (SQLite file)")
    e.add_argument("--out", required=True, metavar="DIR", help="folder for the .phh files (created)")
    e.set_defaults(func=run_history_export)


def run_history_export(args: argparse.Namespace) -> int:
    import pathlib

    from controller.table import TableError, iter_hand_histories

    try:
        log = EventLog(args.db, readonly=True, verify="full", create=False)
    except LogDamaged as exc:
        print(f"cardroom history: {exc}", file=sys.stderr)
        return EXIT_TAMPERED
    except LogError as exc:
        print(f"cardroom history: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    with log:
        table_id = log.table_id if hasattr(log, "table_id") else "table"
        try:
            for hand_no, text in iter_hand_histories(log):
                path = out / f"{table_id}-{hand_no:06d}.phh"
                path.write_text(text, encoding="utf-8")
                count += 1
        except (TableError, ValueError) as exc:
            print(f"cardroom history: {args.db}: cannot replay the log: {exc}", file=sys.stderr)
            return EXIT_UNUSABLE
    print(f"{count} hand(s) written to {out}")
    return EXIT_OK


def register_audit(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    audit = sub.add_parser(
        "audit", help="check and read a table's hash-chained event log",
        description="Check the hash chain of a table's event log (SQLite) or print its events. "
        "A keyed log (HMAC) needs CARDROOM_AUDIT_KEY in the environment.")
    asub = audit.add_subparsers(dest="audit_command", metavar="ACTION")
    asub.required = True

    v = asub.add_parser("verify", help="check the chain; name the first edited, deleted or inserted row",
                        description="Check every row of the log. Exit 0: intact; 1: tampered or "
                        "damaged (the first bad row is named); 2: not an event log or not readable.")
    v.add_argument("db", metavar="DB", help="the event log (SQLite file)")
    v.add_argument("--json", action="store_true", help="print the report as one JSON object")
    v.set_defaults(func=run_verify)

    s = asub.add_parser("show", help="print the events of a log",
                        description="Print the events in order (not verified: run 'audit verify').")
    s.add_argument("db", metavar="DB", help="the event log (SQLite file)")
    s.add_argument("--since", type=int, default=0, metavar="N", help="only events after seq N")
    s.add_argument("--json", action="store_true", help="one JSON object per event, one per line")
    s.set_defaults(func=run_show)


def _fail(args: argparse.Namespace, exc: LogError, code: int) -> int:
    if getattr(args, "json", False):
        print(json.dumps({"ok": False, "error": str(exc)}))
    print(f"cardroom audit: {exc}", file=sys.stderr)
    return code


def run_verify(args: argparse.Namespace) -> int:
    try:
        log = EventLog(args.db, readonly=True, verify="none", create=False)
    except LogError as exc:
        return _fail(args, exc, EXIT_UNUSABLE)
    with log:
        problem = log.key_problem()
        if problem is not None and log.keyed:  # no key, or the wrong one: cannot judge the rows
            return _fail(args, LogError(f"{args.db}: {problem}"), EXIT_UNUSABLE)
        try:
            log.check_file()
            report = log.verify()
        except LogDamaged as exc:
            return _fail(args, exc, EXIT_TAMPERED)
        except LogError as exc:
            return _fail(args, exc, EXIT_UNUSABLE)
    if args.json:
        print(json.dumps({**report.to_json(), "db": args.db}))
    elif report.ok:
        mode = "HMAC-SHA256 (keyed)" if report.keyed else "SHA-256 (unkeyed)"
        print(f"{args.db}: intact: {report.rows} rows, {mode}, head row {report.head_seq} "
              f"hash {report.head_hash}")
    else:
        where = f"first bad row {report.first_bad_seq}" if report.first_bad_seq is not None else "log"
        print(f"{args.db}: TAMPERED or damaged: {where}: {report.problem}")
    return EXIT_OK if report.ok else EXIT_TAMPERED


def _when(ts: float) -> str:
    return datetime.datetime.fromtimestamp(ts, datetime.UTC).isoformat(timespec="milliseconds")


def event_text(e: StoredEvent) -> str:
    hand = f"hand {e.hand_no}" if e.hand_no is not None else "table"
    body = json.dumps(e.payload, sort_keys=True, ensure_ascii=False)
    return f"{e.seq:>7} {_when(e.ts)} {hand:<10} {e.kind:<16} {body}"


def run_show(args: argparse.Namespace) -> int:
    try:
        log = EventLog(args.db, readonly=True, verify="none", create=False)
    except LogError as exc:
        return _fail(args, exc, EXIT_UNUSABLE)
    out: list[str] = []
    with log:
        try:
            for e in log.events(since_seq=args.since):
                out.append(json.dumps(e.to_json(), ensure_ascii=False) if args.json else event_text(e))
                if len(out) >= 1000:
                    print("\n".join(out))
                    out.clear()
        except (LogError, ValueError) as exc:
            if out:
                print("\n".join(out))
            print(f"cardroom audit: {args.db}: cannot read: {exc}", file=sys.stderr)
            return EXIT_UNUSABLE
    if out:
        print("\n".join(out))
    return EXIT_OK

