"""Stream benchmark: 20 000 small events, the app's pipeline into the timeline against a raw
loop and the official A2A client; and a soak of one stream of a million events.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/stream.py [--runs 5] [--only sse|grpc]
        [--scale] [--history-off] [--soak [N]]

A loopback server (a subprocess: HTTP SSE for JSON-RPC, plus a grpc.aio server) sends N
small JSON-RPC status-update events as fast as it can. Measured in the same run:

- (a) SSE raw: httpx-sse ``aiter_sse`` + ``json.loads``, no UI;
- (c) SSE a2a-sdk: the official A2A Python client (a2a-sdk's streaming ``Client``, which
  the Handler CLI and the web inspector build on), every event parsed into its
  ``StreamResponse``; (a) and (c) each run in a warmed process of their own
  (bench/stream_consumers.py);
- (b) SSE app: a request tab in the main window (shown offscreen) sends
  ``SendStreamingMessage``; the exchange pipeline feeds the timeline model, and the GUI's
  history records the exchange (a store in a temporary data directory), as it does for
  every exchange a user sends;
- the same for gRPC: the app's gRPC binding into the timeline vs the faster of two raw
  loops, ``grpc.aio`` and the blocking API on one thread (the app reads server streams with
  the blocking API in a thread; both raw figures are printed).

Printed per binding: events/s for each, the ratios app/raw (SSE >= 0.4, gRPC >= 0.8) and,
for SSE, app/SDK (>= 2.0) against their targets (``OK``/``MISS``), events lost (timeline and
store, must be 0) and the longest GUI event-loop stall during the app run (target < 50 ms),
measured with a 5 ms ``QTimer``. For SSE also a *ceiling* line: the same events without the
network or any view, through httpx into httpx-sse + ``json.loads`` vs the app's transport
alone (decode, parse, classify and check each item); the ratio there is the most the whole
app could reach.

``--scale`` adds a *scale* line per binding: the ratios and the app's microseconds per event
at 5 000, 20 000 and 80 000 events (one set of runs each, a server per size), to show how
the cost grows (it should stay flat: linear time). ``--history-off`` adds the SSE app with
history off vs on (the cost of recording). ``--soak`` adds the soak line (bench/stream_soak.py):
one SSE stream of N events (default 1 000 000), history on: RSS growth per event and at the
end, the longest stall in each tenth, events lost, every row reachable.

The machine may be busy with other work: ``--runs`` sets of runs are made per binding
(back to back, the order rotating from one set to the next, each starting after
``gc.collect()``), and the medians are printed with every run's figure (the spread). A
ratio is the median of the sets' ratios. Same server, same events, same count on every side.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

BATCH = 200  # events per socket write


# --- the server (a subprocess) -----------------------------------------------------------


def _sse_event(request_id: str, n: int, last: bool = False) -> bytes:
    # The last event completes the task, so the stream ends the way the protocol says.
    state = "TASK_STATE_COMPLETED" if last else "TASK_STATE_WORKING"
    body = (
        f'{{"jsonrpc":"2.0","id":{request_id},"result":{{"statusUpdate":{{"taskId":"bench-task",'
        f'"contextId":"bench-ctx","status":{{"state":"{state}","message":'
        f'{{"messageId":"m{n}","role":"ROLE_AGENT","parts":[{{"text":"progress {n}"}}]}}}}}}}}}}'
    )
    return b"data: " + body.encode() + b"\r\n\r\n"


async def _serve(events: int) -> None:
    import grpc
    from a2a.types import a2a_pb2, a2a_pb2_grpc

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.decode("latin-1").split("\r\n"):
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            body = await reader.readexactly(length)
            request_id = json.dumps(json.loads(body).get("id")) if body else "null"
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Cache-Control: no-store\r\nConnection: close\r\n\r\n"
            )
            for start in range(0, events, BATCH):
                chunk = b"".join(
                    _sse_event(request_id, n, n == events)
                    for n in range(start + 1, min(start + BATCH, events) + 1)
                )
                writer.write(chunk)
                await writer.drain()
            await writer.drain()
        finally:
            writer.close()

    class Servicer(a2a_pb2_grpc.A2AServiceServicer):
        async def SendStreamingMessage(self, request: Any, context: Any) -> Any:
            for n in range(1, events + 1):
                yield a2a_pb2.StreamResponse(
                    status_update=a2a_pb2.TaskStatusUpdateEvent(
                        task_id="bench-task",
                        context_id="bench-ctx",
                        status=a2a_pb2.TaskStatus(
                            state=a2a_pb2.TASK_STATE_COMPLETED
                            if n == events
                            else a2a_pb2.TASK_STATE_WORKING,
                            message=a2a_pb2.Message(
                                message_id=f"m{n}",
                                role=a2a_pb2.ROLE_AGENT,
                                parts=[a2a_pb2.Part(text=f"progress {n}")],
                            ),
                        ),
                    )
                )

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    grpc_server = grpc.aio.server()
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(Servicer(), grpc_server)
    grpc_port = grpc_server.add_insecure_port("127.0.0.1:0")
    await grpc_server.start()
    http_port = server.sockets[0].getsockname()[1]
    print(json.dumps({"http": http_port, "grpc": grpc_port}), flush=True)
    async with server:
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await grpc_server.stop(0)


# --- (a) raw consumers ---------------------------------------------------------------------


async def raw_grpc(target: str) -> tuple[int, float]:
    import grpc
    from a2a.types import a2a_pb2, a2a_pb2_grpc
    from google.protobuf.json_format import MessageToDict

    count = 0
    started = time.perf_counter()
    async with grpc.aio.insecure_channel(target) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        request = a2a_pb2.SendMessageRequest(
            message=a2a_pb2.Message(
                message_id="b", role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text="bench")]
            )
        )
        async for response in stub.SendStreamingMessage(request):
            MessageToDict(response)
            count += 1
    return count, time.perf_counter() - started


def raw_grpc_blocking(target: str) -> tuple[int, float]:
    """The same with gRPC's blocking API, read on this thread alone (the library's
    single-threaded server stream): the fastest plain loop, the one the app's reader
    thread is measured against."""
    import grpc
    import grpc.experimental
    from a2a.types import a2a_pb2, a2a_pb2_grpc
    from google.protobuf.json_format import MessageToDict

    count = 0
    started = time.perf_counter()
    options = [(grpc.experimental.ChannelOptions.SingleThreadedUnaryStream, 1)]
    with grpc.insecure_channel(target, options) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        request = a2a_pb2.SendMessageRequest(
            message=a2a_pb2.Message(
                message_id="b", role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text="bench")]
            )
        )
        for response in stub.SendStreamingMessage(request):
            MessageToDict(response)
            count += 1
    return count, time.perf_counter() - started


async def raw_grpc_fastest(target: str) -> tuple[int, float]:
    """Both raw gRPC loops back to back; the faster one's figure (the baseline)."""
    gc.collect()
    aio = await raw_grpc(target)
    gc.collect()
    blocking = raw_grpc_blocking(target)
    RAW_GRPC_RUNS.append((aio, blocking))
    return max(aio, blocking, key=lambda run: run[0] / run[1])


async def transport_only(events: int, reps: int) -> tuple[list[float], list[float]]:
    """SSE without the network or any view: the server's bytes through httpx (a
    ``MockTransport`` handing out 64 KiB chunks) into (a) httpx-sse + ``json.loads`` and (b)
    the app's transport (``send_streaming_batches`` with the JSON-RPC judge: decode, parse,
    classify, check each item). µs per event of each, ``reps`` pairs: (b)'s share is the
    most the whole app could reach against the raw loop."""
    import httpx
    from httpx_sse import aconnect_sse

    from app.protocol.clock import Clock
    from app.protocol.events import StreamItem
    from app.protocol.net.http import HttpCall
    from app.protocol.request import DEFAULT_MAX_RESPONSE_BYTES
    from app.protocol.transports.jsonrpc_http import JsonRpcJudge
    from app.protocol.transports.sse_http import send_streaming_batches

    stream = b"".join(_sse_event("1", n, n == events) for n in range(1, events + 1))

    class Chunks(httpx.AsyncByteStream):
        async def __aiter__(self) -> Any:
            for start in range(0, len(stream), 65536):
                yield stream[start : start + 65536]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Chunks())

    url = "http://127.0.0.1/"
    call = HttpCall("POST", url, (("accept", "text/event-stream"),), b"{}", "SendStreamingMessage")
    raws: list[float] = []
    apps: list[float] = []
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        for _ in range(reps):
            gc.collect()
            started, count = time.perf_counter(), 0
            async with aconnect_sse(client, "POST", url, content=b"{}") as source:
                async for event in source.aiter_sse():
                    json.loads(event.data)
                    count += 1
            raws.append((time.perf_counter() - started) * 1e6 / max(count, 1))
            gc.collect()
            started, count = time.perf_counter(), 0
            batches = send_streaming_batches(
                client,
                call,
                Clock(),
                JsonRpcJudge(None, 1),
                timeout=30,
                max_bytes=DEFAULT_MAX_RESPONSE_BYTES,
            )
            async for batch in batches:
                count += sum(1 for event in batch if isinstance(event, StreamItem))
            apps.append((time.perf_counter() - started) * 1e6 / max(count, 1))
    return raws, apps


def report_transport(raws: list[float], apps: list[float]) -> None:
    shares = [raw / app for raw, app in zip(raws, apps, strict=True)]
    print(
        f"  no network, no view: raw {statistics.median(raws):.1f} µs/event {_spread(raws, '.1f')}"
        f" · app transport {statistics.median(apps):.1f} {_spread(apps, '.1f')}"
    )
    print(f"  ceiling b/a      {statistics.median(shares):>10.2f}   (transport alone; the app "
          f"can reach no more)  {_spread(shares, '.2f')}")  # fmt: skip


RAW_GRPC_RUNS: list[tuple[tuple[int, float], tuple[int, float]]] = []
"""Every (grpc.aio, blocking) pair of raw gRPC runs, for the report."""


# --- (b) the app pipeline into the timeline -------------------------------------------------


async def app_run(
    window: Any, endpoint: str, binding: str, history: Any = None
) -> tuple[int, float, float]:
    """One app run; ``history`` the store to record into (None: history off)."""
    from PySide6.QtCore import QTimer

    from app.protocol.stream.stream_items import ItemKind
    from app.protocol.types import Binding
    from app.ui.timeline.timeline_store import FRAME

    if hasattr(window, "history"):
        window.history.store = history

    tab = window.new_a2a_tab(endpoint, "bench")
    tab.binding_combo.setCurrentIndex(tab.binding_combo.findData(Binding(binding)))
    tab.method_combo.setCurrentIndex(tab.method_combo.findData("SendStreamingMessage"))
    tab.generate_preview()
    tab.replace_body()
    panel = tab.timeline

    gaps = [0.0]
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    await asyncio.sleep(0.2)
    gc.collect()  # start every run (raw and app) from the same collector state
    last[0] = time.perf_counter()
    timer.start()
    started = time.perf_counter()
    tab.send_anyway()
    while tab.busy or panel.running:
        await asyncio.sleep(0.005)
    panel.model.flush()
    elapsed = time.perf_counter() - started
    timer.stop()
    # Counted from the row store: copies of 80 000 rows would read every frame back.
    store = panel.model.store
    items = sum(1 for n in range(len(store)) if store.packed(n) & FRAME)
    errors = [store.summary(n) for n in range(len(store)) if store.kind(n) is ItemKind.ERROR]
    if errors:
        print(f"  errors in the {binding} timeline: {errors[:3]}")
    if history is not None:  # what the history holds of this run (zero loss)
        await asyncio.to_thread(history.flush, 60)
        stored = history.entries(limit=1)[0].items
        if stored != items:
            print(f"  history stored {stored} of {items} stream items: LOSS")
        items = min(items, stored)
    # Close the tab (as a user would) so runs do not pile up 20 000-row timelines.
    window.tabs.removeTab(window.tabs.indexOf(tab))
    tab.deleteLater()
    await asyncio.sleep(0.05)
    return items, elapsed, max(gaps)


async def measure(
    raw: Callable[[], Awaitable[tuple[int, float]]],
    app: Callable[[], Awaitable[tuple[int, float, float]]],
    reps: int,
) -> tuple[list[tuple[int, float]], list[tuple[int, float, float]]]:
    """``reps`` pairs of runs, raw and app back to back (so load from other processes on
    the machine hits both alike), alternating which goes first."""
    raws: list[tuple[int, float]] = []
    apps: list[tuple[int, float, float]] = []
    for rep in range(reps):
        if rep % 2:
            apps.append(await app())
            gc.collect()
            raws.append(await raw())
        else:
            gc.collect()
            raws.append(await raw())
            apps.append(await app())
    return raws, apps


async def measure_sse(
    raw: Callable[[], tuple[int, float]],
    sdk: Callable[[], tuple[int, float]],
    app: Callable[[], Awaitable[tuple[int, float, float]]],
    reps: int,
) -> tuple[list[tuple[int, float]], list[tuple[int, float]], list[tuple[int, float, float]]]:
    """``reps`` sets of runs, raw, SDK and app back to back, the order rotating (raw first,
    then the SDK first, then the app first, …): load from other processes on the machine
    hits every side alike."""
    raws: list[tuple[int, float]] = []
    sdks: list[tuple[int, float]] = []
    apps: list[tuple[int, float, float]] = []
    for rep in range(reps):
        for who in ("raw", "sdk", "app")[rep % 3 :] + ("raw", "sdk", "app")[: rep % 3]:
            gc.collect()
            if who == "raw":
                raws.append(raw())
            elif who == "sdk":
                sdks.append(sdk())
            else:
                apps.append(await app())
    return raws, sdks, apps


TARGETS = {"SSE (JSON-RPC)": 0.4, "gRPC": 0.8}
"""The least app/raw ratio per binding, history recording on."""
SDK_TARGET = 2.0
"""The least app/SDK ratio (SSE): the app against the official A2A Python client."""


def report(
    name: str,
    events: int,
    raws: list[tuple[int, float]],
    apps: list[tuple[int, float, float]],
    sdks: list[tuple[int, float]] | None = None,
) -> None:
    raw_rates = [count / seconds for count, seconds in raws]
    app_rates = [count / seconds for count, seconds, _stall in apps]
    ratios = [a / r for a, r in zip(app_rates, raw_rates, strict=True)]
    stalls = [stall * 1000 for _count, _seconds, stall in apps]
    ratio = statistics.median(ratios)
    stall = statistics.median(stalls)
    target = TARGETS[name]
    lost = max(events - count for count, _seconds, _stall in apps)
    raw_lost = max(events - count for count, _seconds in [*raws, *(sdks or [])])
    runs = len(raws)
    order = "; the order rotates" if sdks else ""
    print(f"{name}: {events:,} events, {runs} run(s) each{order}, medians [every run]")
    if name == "gRPC" and RAW_GRPC_RUNS:
        pairs = RAW_GRPC_RUNS[-runs:]
        for label, index in (("grpc.aio", 0), ("blocking", 1)):
            rates = [pair[index][0] / pair[index][1] for pair in pairs]
            print(
                f"  raw, {label:<10} {statistics.median(rates):>10,.0f} events/s  {_spread(rates)}"
            )
        print("  (a) is the faster of the two in each run")
    print(
        f"  (a) raw          {statistics.median(raw_rates):>10,.0f} events/s  {_spread(raw_rates)}"
    )
    if sdks:
        sdk_rates = [count / seconds for count, seconds in sdks]
        print(
            f"  (c) a2a-sdk      {statistics.median(sdk_rates):>10,.0f} events/s  "
            f"{_spread(sdk_rates)}  (a2a-sdk {_sdk_version()} Client)"
        )
    print(
        f"  (b) app→timeline {statistics.median(app_rates):>10,.0f} events/s  {_spread(app_rates)}"
        "  (history on)"
    )
    print(
        f"  ratio b/a        {ratio:>10.2f}   (target >= {target})  "
        f"{'OK' if ratio >= target else 'MISS'}  {_spread(ratios, '.2f')}"
    )
    if sdks:
        by_sdk = [
            a / (count / seconds) for a, (count, seconds) in zip(app_rates, sdks, strict=True)
        ]
        median = statistics.median(by_sdk)
        print(
            f"  ratio b/c        {median:>10.2f}   (target >= {SDK_TARGET})  "
            f"{'OK' if median >= SDK_TARGET else 'MISS'}  {_spread(by_sdk, '.2f')}  (app/SDK)"
        )
    print(f"  events lost      {lost:>10}   (timeline and store; must be 0)  "
          f"{'OK' if lost == 0 else 'FAIL'}")  # fmt: skip
    if raw_lost:
        print(f"  a baseline lost {raw_lost} events: the server or loopback misbehaved")
    print(
        f"  longest GUI stall {stall:>9.1f} ms (target < 50)  {'OK' if stall < 50 else 'MISS'}"
        f"  {_spread(stalls, '.1f')} ms"
    )


def _sdk_version() -> str:
    from importlib.metadata import version

    return version("a2a-sdk")


def report_scale(name: str, figures: list[tuple[int, float, float, float | None]]) -> None:
    """``figures``: (events, ratio app/raw, app µs per event, ratio app/SDK or None) per
    size."""
    target = TARGETS[name]
    ratios = " · ".join(f"{events:,}: {ratio:.2f}" for events, ratio, _us, _sdk in figures)
    costs = " / ".join(f"{us:.1f}" for _events, _ratio, us, _sdk in figures)
    verdict = "OK" if all(ratio >= target for _events, ratio, _us, _sdk in figures) else "MISS"
    print(f"  scale b/a        {ratios}  (target >= {target})  {verdict}")
    by_sdk = [(events, sdk) for events, _ratio, _us, sdk in figures if sdk is not None]
    if by_sdk:
        text = " · ".join(f"{events:,}: {sdk:.2f}" for events, sdk in by_sdk)
        verdict = "OK" if all(sdk >= SDK_TARGET for _events, sdk in by_sdk) else "MISS"
        print(f"  scale b/c        {text}  (target >= {SDK_TARGET})  {verdict}")
    print(f"  scale app cost   {costs} µs/event  (flat = linear)")


async def _rate(run: Awaitable[tuple[int, float, float]]) -> tuple[int, float]:
    count, seconds, _stall = await run
    return count, seconds


def report_history(
    events: int, offs: list[tuple[int, float]], ons: list[tuple[int, float, float]]
) -> None:
    off_rates = [count / seconds for count, seconds in offs]
    on_rates = [count / seconds for count, seconds, _stall in ons]
    ratios = [a / b for a, b in zip(on_rates, off_rates, strict=True)]
    ratio = statistics.median(ratios)
    lost = max(events - count for count, _seconds, _stall in ons)
    print(f"SSE (JSON-RPC) history off vs on: {events:,} events, {len(ons)} run(s), medians")
    print(
        f"  history off      {statistics.median(off_rates):>10,.0f} events/s  {_spread(off_rates)}"
    )
    print(f"  history on       {statistics.median(on_rates):>10,.0f} events/s  {_spread(on_rates)}")
    print(f"  ratio on/off     {ratio:>10.2f}   {_spread(ratios, '.2f')}")
    print(f"  events lost      {lost:>10}   (timeline and store; must be 0)  "
          f"{'OK' if lost == 0 else 'FAIL'}")  # fmt: skip


def _spread(values: list[float], spec: str = ",.0f") -> str:
    return "[" + ", ".join(format(v, spec) for v in values) + "]"


class Server:
    """The loopback server subprocess for ``events`` events per stream."""

    def __init__(self, events: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", "--events", str(events)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        ports = json.loads(self.process.stdout.readline())
        self.url = f"http://127.0.0.1:{ports['http']}/"
        self.target = f"127.0.0.1:{ports['grpc']}"

    def stop(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(10)


SCALE_EVENTS = (5_000, 20_000, 80_000)
SOAK_EVENTS = 1_000_000


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5, help="sets of runs per binding")
    parser.add_argument("--only", choices=["sse", "grpc", "soak"], help="one line only")
    parser.add_argument("--scale", action="store_true", help="ratios at 5k / 20k / 80k events")
    parser.add_argument("--history-off", action="store_true", help="SSE app history off vs on")
    parser.add_argument(
        "--soak",
        type=int,
        nargs="?",
        const=SOAK_EVENTS,
        metavar="N",
        help=f"one SSE stream of N events (default {SOAK_EVENTS:,}), history on, first",
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve(args.events))
        return 0
    if args.only == "soak" and not args.soak:
        args.soak = SOAK_EVENTS

    # The GUI records every exchange: into a throwaway data directory, not the user's.
    import tempfile

    sys.path.insert(0, str(Path(__file__).parent))
    from stream_consumers import Consumer
    from stream_soak import soak

    data_home = tempfile.TemporaryDirectory(prefix="a2a-bench-")
    os.environ["XDG_DATA_HOME"] = data_home.name
    os.environ["XDG_CONFIG_HOME"] = data_home.name
    server = Server(args.events)
    sse = args.only in (None, "sse")
    # The baselines in warmed processes of their own, started before Qt is (a stream each).
    consumers = {kind: Consumer(kind, server.url) for kind in ("raw", "sdk")} if sse else {}
    try:
        url, target = server.url, server.target

        from PySide6.QtWidgets import QApplication

        from app.ui.shell import runtime
        from app.ui.shell.event_loop import WorkbenchLoop
        from app.ui.shell.main_window import MainWindow

        app = QApplication.instance() or QApplication(sys.argv)
        # As the app does at start (GUI-thread collection, allocator, GIL); the in-process
        # gRPC loops run with it too.
        runtime.configure(app)
        loop = WorkbenchLoop(app)  # the app's loop
        asyncio.set_event_loop(loop)
        window = MainWindow()
        window.resize(1280, 800)
        window.show()
        store: list[Any] = []
        recording = getattr(window, "history", None)  # the GUI's history (if wired in)
        if recording is not None:
            recording.opened.connect(store.append)

        async def scale(name: str, binding: str) -> None:
            figures: list[tuple[int, float, float, float | None]] = []
            for events in SCALE_EVENTS:
                sized = Server(events)
                by_sdk: float | None = None
                try:
                    endpoint = sized.url if binding == "JSONRPC" else sized.target
                    gc.collect()
                    if binding == "JSONRPC":
                        count, seconds = consumers["raw"].run(sized.url)
                        sdk_count, sdk_seconds = consumers["sdk"].run(sized.url)
                    else:
                        count, seconds = await raw_grpc_fastest(sized.target)
                    items, app_seconds, _stall = await app_run(window, endpoint, binding, history)
                    if binding == "JSONRPC":
                        by_sdk = (items / app_seconds) / (sdk_count / sdk_seconds)
                finally:
                    sized.stop()
                if items != events or count != events:
                    print(f"  scale {events:,}: {events - items} events lost")
                ratio = (items / app_seconds) / (count / seconds)
                figures.append((events, ratio, app_seconds * 1e6 / max(items, 1), by_sdk))
            report_scale(name, figures)

        history: Any = None

        async def run_all() -> None:
            nonlocal history
            await window.warm_up()  # as the app does at start
            while recording is not None and not store and recording.store is None:
                await asyncio.sleep(0.02)
            history = store[0] if store else getattr(recording, "store", None)
            if args.soak:  # first: its memory figures start from a window that did nothing
                soaking = Server(args.soak)
                try:
                    await soak(window, soaking.url, history, args.soak)
                finally:
                    soaking.stop()
            if sse:
                raws, sdks, apps = await measure_sse(
                    lambda: consumers["raw"].run(url),
                    lambda: consumers["sdk"].run(url),
                    lambda: app_run(window, url, "JSONRPC", history),
                    args.runs,
                )
                report("SSE (JSON-RPC)", args.events, raws, apps, sdks)
                report_transport(*await transport_only(args.events, args.runs))
                if args.scale:
                    await scale("SSE (JSON-RPC)", "JSONRPC")
            if sse and args.history_off and history is not None:
                offs, ons = await measure(
                    lambda: _rate(app_run(window, url, "JSONRPC")),
                    lambda: app_run(window, url, "JSONRPC", history),
                    args.runs,
                )
                report_history(args.events, offs, ons)
            if args.only in (None, "grpc"):
                raws, apps = await measure(
                    lambda: raw_grpc_fastest(target),
                    lambda: app_run(window, target, "GRPC", history),
                    args.runs,
                )
                report("gRPC", args.events, raws, apps)
                if args.scale:
                    await scale("gRPC", "GRPC")
            if recording is not None:
                recording.store = history  # closed by the shutdown
            await window.shutdown()

        with loop:  # closing the loop also stops its executor (warm_up's thread)
            loop.run_until_complete(run_all())
            window.close_now()
        return 0
    finally:
        for consumer in consumers.values():
            consumer.stop()
        server.stop()
        data_home.cleanup()


if __name__ == "__main__":
    sys.exit(main())
