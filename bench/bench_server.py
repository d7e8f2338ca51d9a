"""From an event stored to the dealer screen's stream delivering it: latency with N viewers.

Starts the app with uvicorn on 127.0.0.1 (a thread of this process), connects N server-sent-event
clients to ``/api/v1/dealer/stream`` (raw asyncio sockets, in a second process so the clients do
not share the server's event loop), posts commands through the API and, for each stored event,
measures (time the client read the message carrying it) - (the event's stored timestamp ``ts``).

    python bench/bench_server.py --clients 50 --commands 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import platform
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


async def _client(port: int, token: str, out: list, ready: asyncio.Event, counter: list) -> None:  # type: ignore[type-arg]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /api/v1/dealer/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                 f"Accept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    first = True
    while True:
        line = await reader.readline()
        if not line:
            return
        if line.startswith(b"data: "):
            now = time.time()
            msg = json.loads(line[6:])
            if first:
                first = False
                counter[0] += 1
                if counter[0] == counter[1]:
                    ready.set()
                continue
            if msg.get("kind") == "__end__":
                return
            out.append((msg["seq"], msg["ts"], now))


def _clients_main(port: int, token: str, n: int, q: "mp.Queue", go: "mp.Event", done: "mp.Event") -> None:  # type: ignore[type-arg]
    async def main() -> None:
        ready = asyncio.Event()
        counter = [0, n]
        outs: list[list] = [[] for _ in range(n)]  # type: ignore[type-arg]
        tasks = [asyncio.create_task(_client(port, token, outs[i], ready, counter)) for i in range(n)]
        await asyncio.wait_for(ready.wait(), 30)
        go.set()
        while not done.is_set():
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        for t in tasks:
            t.cancel()
        q.put([x for o in outs for x in o])

    asyncio.run(main())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--commands", type=int, default=200)
    ap.add_argument("--gap-ms", type=float, default=20.0, help="pause between commands")
    args = ap.parse_args()

    import httpx2 as httpx

    from server_helpers import TOKENS, live_server, make_app, make_service

    svc = make_service()
    for seat in range(1, 10):
        svc.command("seat_player", {"seat": seat, "name": f"P{seat}", "stack": 10_000_000})
    app = make_app(svc)
    with live_server(app) as base:
        port = int(base.rsplit(":", 1)[1])
        q: mp.Queue = mp.Queue()  # type: ignore[type-arg]
        go, done = mp.Event(), mp.Event()
        proc = mp.Process(target=_clients_main, args=(port, TOKENS["dealer"], args.clients, q, go, done))
        proc.start()
        if not go.wait(60):
            raise SystemExit("clients did not connect")
        seqs = []
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {TOKENS['dealer']}"}) as http:
            http.post("/api/v1/dealer/commands", json={"name": "start_hand", "args": {"button": 9}})
            deck = [r + s for r in "AKQJT98765432" for s in "shdc"]
            for seat in range(1, 10):
                http.post("/api/v1/dealer/commands",
                          json={"name": "deal", "args": {"seat": seat, "cards": deck[2 * seat] + deck[2 * seat + 1]}})
            for i in range(args.commands):
                actor = svc.snapshot()["hand"]["actor"]
                # Alternate a small raise and a call: a long preflop betting round, one event each.
                name, extra = ("bet_raise_to", {"amount": 4 + 2 * i}) if i % 2 == 0 else ("check_call", {})
                r = http.post("/api/v1/dealer/commands", json={"name": name, "args": {"seat": actor, **extra}})
                if r.status_code != 200:
                    raise SystemExit(r.text)
                seqs.append(r.json()["events"][-1]["seq"])
                time.sleep(args.gap_ms / 1000)
        done.set()
        rows = q.get(timeout=60)
        proc.join(10)
    wanted = set(seqs)
    lat = sorted((now - ts) * 1000 for seq, ts, now in rows if seq in wanted)
    expected = len(wanted) * args.clients
    p = lambda x: lat[min(len(lat) - 1, int(x * len(lat)))]  # noqa: E731
    print(f"clients={args.clients} commands={args.commands} deliveries={len(lat)}/{expected} "
          f"p50={p(0.5):.2f} ms p90={p(0.9):.2f} ms p99={p(0.99):.2f} ms max={lat[-1]:.2f} ms "
          f"mean={statistics.fmean(lat):.2f} ms")
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.platform()}")


if __name__ == "__main__":
    main()
