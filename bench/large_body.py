"""Benchmark: a 25 MiB SendMessage response, from Send until the response view shows it.

Baseline, measured in the same run on the same bytes: ``json.loads`` + ``json.dumps(indent=2)``.
Targets (docs/ARCHITECTURE.md §8): time ratio ≤ 3×, peak memory ≤ 5× the body, and the
window keeps repainting (the longest event-loop stall is printed).

Each measurement runs in a fresh subprocess; medians of ``--runs`` runs are printed.
Usage: ``python bench/large_body.py [--runs 3] [--mib 25]``.
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

    import qasync
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.ui.main_window import MainWindow

    app = QApplication([])
    loop = qasync.QEventLoop(app)
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
        chars = tab.response_view.pretty_view.document().characterCount() - 1
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
    out = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, cwd=REPO, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mib", type=int, default=25)
    parser.add_argument("--child", choices=["app", "baseline"])
    parser.add_argument("target", nargs="?")
    args = parser.parse_args()
    if args.child == "baseline":
        return child_baseline(args.target)
    if args.child == "app":
        return child_app(args.target)

    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        body = make_body(args.mib)
        fh.write(body)
    server = serve(fh.name)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        apps, bases = [], []
        for _ in range(args.runs):
            bases.append(run_child("--child", "baseline", fh.name))
            apps.append(run_child("--child", "app", url))
    finally:
        server.shutdown()
        os.unlink(fh.name)
    size_mib = len(body) / 2**20
    app_s = statistics.median(r["s"] for r in apps)
    base_s = statistics.median(r["s"] for r in bases)
    app_peak = statistics.median(r["peak_mib"] for r in apps)
    complete = all(r["chars"] == bases[0]["chars"] for r in apps)
    print(f"body: {size_mib:.1f} MiB, {args.runs} runs each (medians)")
    print(f"baseline json.loads + json.dumps(indent=2): {base_s:.3f} s")
    outcome = apps[0]["outcome"]
    print(f"app, Send → pretty view complete:          {app_s:.3f} s  (outcome {outcome})")
    print(f"ratio app / baseline: {app_s / base_s:.2f}x  (target <= 3x)")
    times = app_peak / size_mib
    print(f"app peak memory above idle: {app_peak:.0f} MiB = {times:.2f}x the body (target <= 5x)")
    print(f"longest GUI event-loop stall: {max(r['stall_ms'] for r in apps):.0f} ms")
    print(f"pretty text complete in every run: {complete}")


if __name__ == "__main__":
    main()
