"""Benchmark: open and save a generated 1 000-operation spec vs plain PyYAML, same run.

    python bench/spec.py [--operations 1000] [--repeat 3]

Both sides use the C loader/dumper when PyYAML has libyaml (``CSafeLoader``/``CSafeDumper``):
the baseline is ``yaml.load(text, CSafeLoader)`` + ``yaml.dump(data, CSafeDumper)`` of the
same file; ours is :func:`app.spec.document.loads` + ``operations()`` (x-a2a parsed and
validated for every operation) + ``dumps``. Prints times and the ratio (target ≤ 2×).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.protocol.methods.catalog import METHODS, TemplateContext
from app.protocol.request import render_body
from app.protocol.types import Binding
from app.spec.document import SpecDocument, dumps, loads
from app.spec.xa2a import SavedRequest

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def generate(count: int) -> str:
    """A document with ``count`` A2A operations cycling through every method × binding."""
    combos = [(m, b) for m in METHODS for b in Binding if m.supports(b)]
    doc = SpecDocument.new("bench")
    for i in range(count):
        spec, binding = combos[i % len(combos)]
        doc.upsert(
            SavedRequest(
                name=f"{spec.name} {binding.value} {i}",
                version=spec.version,
                binding=binding,
                endpoint="{{baseUrl}}/",
                method=spec.name,
                body=render_body(spec, binding, TemplateContext(message_id=f"m-{i}")),
            )
        )
    return doc.dumps()


def best(fn: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--operations", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    text = generate(args.operations)
    print(f"document: {args.operations} operations, {len(text) / 1e6:.1f} MB, "
          f"libyaml={'yes' if LOADER is not yaml.SafeLoader else 'no'}")  # fmt: skip

    def plain_open() -> object:
        return yaml.load(text, Loader=LOADER)

    data = plain_open()

    def plain_save() -> str:
        return yaml.dump(data, Dumper=DUMPER, sort_keys=False, allow_unicode=True)

    def ours_open() -> object:
        doc = loads(text)
        assert len(doc.operations()) == args.operations
        return doc

    doc = ours_open()

    def ours_save() -> str:
        return dumps(doc.data)  # type: ignore[attr-defined]

    rows = [
        ("open", best(plain_open, args.repeat), best(ours_open, args.repeat)),
        ("save", best(plain_save, args.repeat), best(ours_save, args.repeat)),
    ]
    total_plain = sum(r[1] for r in rows)
    total_ours = sum(r[2] for r in rows)
    rows.append(("open+save", total_plain, total_ours))
    print(f"{'':10} {'yaml (s)':>10} {'spec (s)':>10} {'ratio':>7}")
    for name, plain, ours in rows:
        print(f"{name:10} {plain:10.3f} {ours:10.3f} {ours / plain:6.2f}x")
    ratio = total_ours / total_plain
    print(f"target <= 2.00x: {'met' if ratio <= 2.0 else 'MISSED'} ({ratio:.2f}x)")
    return 0 if ratio <= 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
