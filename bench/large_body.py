"""Benchmark: a 25 MiB SendMessage response, from Send until the response view shows it.

Baseline, measured in the same run on the same bytes: ``json.loads`` + ``json.dumps(indent=2)``.
Targets: time ratio ≤ 1.5×, peak memory ≤ 3× the body, longest event-loop stall < 50 ms;
each is printed with OK or MISS and every run's figure. ``--scale`` adds one run at 6, 25
and 60 MiB.

Each measurement runs in a fresh subprocess; medians of ``--runs`` runs are printed.
Usage: ``python bench/large_body.py [--runs 3] [--mib 25] [--scale]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def make_body(mib: int) -> bytes:
    """A JSON-RPC result: a completed Task whose artifacts hold ~1 KiB text parts."""
    text = "lorem ipsum dolor sit amet, consectetur adipiscing elit " * 18
    count = mib * 1024 * 1024 // (len(text) + 90)
    artifacts = [
        {"artifactId": f"a{i}", "name": f"chunk {i}", "parts": [{"text": text}]}
        for i in range(count)
    ]
    task = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}
    return json.dumps(
        {"jsonrpc": "2.0", "id": None, "result": {"task": {**task, "artifacts": artifacts}}}
    ).encode()


def rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_baseline(path: str) -> None:
    body = Path(path).read_bytes()
    before = rss_mib()
    started = time.perf_counter()
    text = json.dumps(json.loads(body), indent=2, ensure_ascii=False)
    elapsed = time.perf_counter() - started
    print(json.dumps({"s": elapsed, "peak_mib": peak_mib() - before, "chars": len(text)}))


def child_app(url: str) -> None:
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    import asyncio

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.ui.shell import runtime
    from app.ui.shell.event_loop import WorkbenchLoop
    from app.ui.shell.main_window import MainWindow

    app = QApplication([])
    runtime.configure(app)  # as the app does at start (GUI-thread collection, allocator, GIL)
    loop = WorkbenchLoop(app)  # the app's loop
    asyncio.set_event_loop(loop)
    window = MainWindow()
    window.show()
    tab = window.new_a2a_tab(url, "big")
    stall = {"last": time.perf_counter(), "max": 0.0}

    def tick() -> None:
        now = time.perf_counter()
        stall["max"] = max(stall["max"], now - stall["last"])
        stall["last"] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)

    async def main() -> dict[str, float]:
        await window.warm_up()  # as the app does at start
        await asyncio.sleep(0.2)
        before = rss_mib()
        timer.start()
        stall["last"] = time.perf_counter()
        started = time.perf_counter()
        tab.send_or_cancel()
        while tab.busy or tab.response_view.outcome is None:
            await asyncio.sleep(0.005)
        elapsed = time.perf_counter() - started
        timer.stop()
        chars = tab.response_view.pretty_char_count()
        result = {
            "s": elapsed,
            "peak_mib": peak_mib() - before,
            "chars": chars,
            "stall_ms": stall["max"] * 1000,
            "outcome": str(tab.response_view.outcome),
        }
        await window.shutdown()
        return result

    with loop:
        print(json.dumps(loop.run_until_complete(main())))


def serve(path: str) -> ThreadingHTTPServer:
    body = Path(path).read_bytes()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    import threading

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run_child(*args: str) -> dict[str, float]:
    # A fresh data and config directory per run: the user's session (its restored tabs) and
    # history would otherwise be part of the figure, and the run would add to them.
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "XDG_DATA_HOME": home, "XDG_CONFIG_HOME": home}
        out = subprocess.run(
            [sys.executable, __file__, *args],
            capture_output=True,
            text=True,
            cwd=REPO,
            check=True,
            env=env,
        ).stdout
    return json.loads(out.strip().splitlines()[-1])


TARGET_RATIO, TARGET_MEM, TARGET_STALL_MS = 1.5, 3.0, 50.0


def verdict(ok: bool) -> str:
    return "OK" if ok else "MISS"


def measure(mib: int, runs: int) -> tuple[list[dict[str, float]], list[dict[str, float]], float]:
    """``runs`` baseline and app runs on one body of ``mib`` MiB; returns them and its size."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        body = make_body(mib)
        fh.write(body)
    server = serve(fh.name)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        apps, bases = [], []
        for _ in range(runs):
            bases.append(run_child("--child", "baseline", fh.name))
            apps.append(run_child("--child", "app", url))
    finally:
        server.shutdown()
        os.unlink(fh.name)
    return apps, bases, len(body) / 2**20


def spread(values: list[float], fmt: str) -> str:
    return ", ".join(format(v, fmt) for v in values)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mib", type=int, default=25)
    parser.add_argument("--scale", action="store_true", help="also one run at 6 / 25 / 60 MiB")
    parser.add_argument("--child", choices=["app", "baseline"])
    parser.add_argument("target", nargs="?")
    args = parser.parse_args()
    if args.child == "baseline":
        return child_baseline(args.target)
    if args.child == "app":
        return child_app(args.target)

    apps, bases, size_mib = measure(args.mib, args.runs)
    ratios = [a["s"] / b["s"] for a, b in zip(apps, bases, strict=True)]
    mems = [a["peak_mib"] / size_mib for a in apps]
    stalls = [a["stall_ms"] for a in apps]
    ratio, mem, stall = statistics.median(ratios), statistics.median(mems), max(stalls)
    complete = all(r["chars"] == bases[0]["chars"] for r in apps)
    base_s = statistics.median(r["s"] for r in bases)
    app_s = statistics.median(r["s"] for r in apps)
    print(f"body: {size_mib:.1f} MiB, {args.runs} runs each (medians; every run in brackets)")
    print(f"baseline json.loads + json.dumps(indent=2): {base_s:.3f} s")
    print(
        f"app, Send → pretty view complete:          {app_s:.3f} s  (outcome {apps[0]['outcome']})"
    )
    print(
        f"time app / baseline:      {ratio:5.2f}x  target <= {TARGET_RATIO:g}x"
        f"   {verdict(ratio <= TARGET_RATIO)}  [{spread(ratios, '.2f')}]"
    )
    print(
        f"peak memory / body size:  {mem:5.2f}x  target <= {TARGET_MEM:g}x"
        f"   {verdict(mem <= TARGET_MEM)}  [{spread(mems, '.2f')}]"
    )
    print(
        f"longest GUI stall:        {stall:5.0f} ms target < {TARGET_STALL_MS:g} ms"
        f" {verdict(stall < TARGET_STALL_MS)}  [{spread(stalls, '.0f')}]"
    )
    print(f"pretty text complete in every run: {complete}")
    if args.scale:
        for mib in (6, 25, 60):
            runs, base_runs, mib_size = measure(mib, 1)
            app, base = runs[0], base_runs[0]
            print(
                f"scale {mib_size:5.1f} MiB: time {app['s'] / base['s']:.2f}x"
                f" ({app['s']:.2f} s), memory {app['peak_mib'] / mib_size:.2f}x,"
                f" stall {app['stall_ms']:.0f} ms"
            )


if __name__ == "__main__":
    main()
