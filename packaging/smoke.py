"""Smoke test of a built bundle: ``python packaging/smoke.py dist/a2a-workbench/a2a-workbench``.

1. ``--selftest`` (offscreen): window, bundled demo agent, one Send answered ``Sum: 42``;
2. the example spec and the manual (``app/docs``) are inside the bundle, and ``run`` sends
   all of the example's saved requests to the bundle's own demo agent (``demo-agent`` on
   free loopback ports).

Standard library only, so any Python runs it. Exit 0 when all passes; otherwise 1 with the
failing step's output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path("_internal/app/resources/examples/demo-agent.a2a.yaml")
MANUAL = Path("_internal/app/docs/GUI.md")


def fail(step: str, proc: subprocess.CompletedProcess[str] | None = None) -> int:
    print(f"bundle smoke test FAILED: {step}", file=sys.stderr)
    if proc is not None:
        print(proc.stdout[-4000:], proc.stderr[-4000:], sep="\n", file=sys.stderr)
    return 1


def main(argv: list[str]) -> int:
    exe = Path(argv[0]).resolve()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [str(exe), "--selftest"], capture_output=True, text=True, env=env, timeout=300
    )
    if proc.returncode != 0 or "selftest: ok" not in proc.stdout:
        return fail("--selftest", proc)
    print(proc.stdout.strip())

    example = exe.parent / EXAMPLE
    if not example.is_file():
        return fail(f"no example spec at {example}")
    if not (exe.parent / MANUAL).is_file():
        return fail(f"no manual at {exe.parent / MANUAL} (Help → Documentation)")
    agent = subprocess.Popen(
        [str(exe), "demo-agent", "--host", "127.0.0.1", "--port", "0", "--grpc-port", "0"],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert agent.stdout is not None
        ready = None
        for line in agent.stdout:
            if line.startswith("{") and json.loads(line).get("event") == "ready":
                ready = json.loads(line)
                break
        if ready is None:
            return fail("demo-agent printed no ready line")
        variables = ["--var", f"baseUrl={ready['base_url']}"]
        variables += ["--var", f"grpcTarget={ready['grpc_target']}"]
        proc = subprocess.run(
            [str(exe), "run", str(example), *variables],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
    finally:
        agent.terminate()
        agent.wait(timeout=30)
    ends = [r for r in map(json.loads, proc.stdout.splitlines()) if r.get("event") == "end"]
    if proc.returncode != 0 or not ends or any(e["outcome"] != "ok" for e in ends):
        return fail("run on the bundled example spec", proc)
    print(f"bundle smoke test: ok ({len(ends)} saved requests answered by the bundled agent)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
