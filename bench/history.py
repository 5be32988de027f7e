"""History benchmark: a 20 000-event stream through the exchange pipeline, recording off vs on.

    .venv/bin/python bench/history.py [--events 20000] [--runs 5] [--only sse|grpc]

The loopback server of bench/stream.py (``--serve``) sends N small status-update events over
SSE (JSON-RPC) and gRPC. Each run consumes ``exchange.run`` headlessly (the CLI's path);
with history on, every event is also fed to a recorder whose writer thread stores it in
a fresh SQLite file. Printed per binding (medians of ``--runs`` alternating pairs): events/s
off and on, the ratio on/off (target >= 0.9: recording must not slow a stream), how long
after the stream's end the last batch was committed, and events lost (stored items vs
received, must be 0).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


async def one_run(
    endpoint: str, binding: str, store_dir: Path | None
) -> tuple[int, float, float, int]:
    """(items received, seconds, seconds to store after the end, items lost)."""
    from app.history.store import HistoryStore
    from app.protocol import exchange
    from app.protocol.events import StreamItem
    from app.protocol.methods.catalog import TemplateContext, find_method
    from app.protocol.request import A2ARequest, render_body
    from app.protocol.types import Binding, ProtocolVersion

    spec = find_method(ProtocolVersion.V1_0, "SendStreamingMessage")
    assert spec is not None
    body = render_body(spec, Binding(binding), TemplateContext())
    request = A2ARequest(
        endpoint, spec.name, body, ProtocolVersion.V1_0, Binding(binding), timeout=60.0
    )
    store = HistoryStore.open(store_dir / "history.sqlite3") if store_dir else None
    recorder = store.recorder(request, source="bench") if store else None
    gc.collect()
    items = 0
    started = time.perf_counter()
    async for event in exchange.run(request):
        if recorder is not None:
            recorder.feed(event)
        if isinstance(event, StreamItem):
            items += 1
    elapsed = time.perf_counter() - started
    lost = 0
    drain = 0.0
    if recorder is not None and store is not None:
        recorder.close()
        drain = time.perf_counter() - started - elapsed
        exchange_id = recorder.exchange_id
        entry = store.entry(exchange_id) if exchange_id is not None else None
        stored = sum(1 for e in store.iter_events(exchange_id or 0) if isinstance(e, StreamItem))
        lost = items - stored if entry is not None else items
        store.close()
    return items, elapsed, drain, lost


async def measure(endpoint: str, binding: str, runs: int, events: int) -> None:
    offs: list[float] = []
    ons: list[float] = []
    drains: list[float] = []
    lost = 0
    short = 0
    for rep in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            order = [None, Path(tmp)] if rep % 2 == 0 else [Path(tmp), None]
            for store_dir in order:
                items, seconds, drain, missing = await one_run(endpoint, binding, store_dir)
                short = max(short, events - items)
                if store_dir is None:
                    offs.append(items / seconds)
                else:
                    ons.append(items / seconds)
                    drains.append(drain * 1000)
                    lost = max(lost, missing)
    ratios = [on / off for on, off in zip(ons, offs, strict=True)]
    ratio = statistics.median(ratios)
    print(f"{binding}: {events:,} events, {runs} run(s) each, medians")
    print(f"  history off      {statistics.median(offs):>10,.0f} events/s  {_spread(offs)}")
    print(f"  history on       {statistics.median(ons):>10,.0f} events/s  {_spread(ons)}")
    print(f"  ratio on/off     {ratio:>10.2f}   (target >= 0.9)  {'OK' if ratio >= 0.9 else 'MISS'}"
          f"  {_spread(ratios, '.2f')}")  # fmt: skip
    print(f"  stored after end {statistics.median(drains):>10.1f} ms  {_spread(drains, '.1f')}")
    print(f"  events lost      {lost:>10}   (must be 0)      {'OK' if lost == 0 else 'FAIL'}")
    if short:
        print(f"  the consumer received {short} events fewer than sent: the server misbehaved")


def _spread(values: list[float], spec: str = ",.0f") -> str:
    return "[" + ", ".join(format(v, spec) for v in values) + "]"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5, help="off/on pairs per binding")
    parser.add_argument("--only", choices=["sse", "grpc"], help="one binding only")
    args = parser.parse_args()
    server = subprocess.Popen(
        [
            sys.executable,
            str(REPO / "bench" / "stream.py"),
            "--serve",
            "--events",
            str(args.events),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        ports = json.loads(server.stdout.readline())

        async def run_all() -> None:
            if args.only != "grpc":
                await measure(
                    f"http://127.0.0.1:{ports['http']}/", "JSONRPC", args.runs, args.events
                )
            if args.only != "sse":
                await measure(f"127.0.0.1:{ports['grpc']}", "GRPC", args.runs, args.events)

        asyncio.run(run_all())
        return 0
    finally:
        if server.stdin:
            server.stdin.close()
        server.wait(10)


if __name__ == "__main__":
    sys.exit(main())
