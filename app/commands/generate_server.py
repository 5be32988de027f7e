"""``a2a-workbench generate-server``: write a runnable A2A server project from a card or spec.

Usage::

    a2a-workbench generate-server --from CARD_URL_OR_FILE|SPEC [--operation ID]
        [--env NAME] [--var NAME=VALUE]... --lang python|node --out DIR
        [--host H] [--port P] [--grpc-port G] [--bindings JSONRPC HTTP+JSON GRPC]
        [--compat-0.3] [--force]

The card (``app.generate.source``) is rewritten into the 1.0 card the generated server
publishes (``app.generate.plan``); what changed is printed as ``note:`` lines, the card
validator's warnings as ``warning:`` lines. Then the files written, and the two commands
that start the server.

Exit status: 0 written; 2 the card URL gave no card; 3 usage error (bad arguments, an
unreadable or unusable source, a card the validator rejects, a non-empty ``--out``
without ``--force``).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from app.commands import cli
from app.commands.cli import CliUsageError, say
from app.errors import UsageError
from app.generate.output_dir import OutputDirError, check_dir
from app.generate.plan import plan_from_card
from app.generate.project_model import ALL_BINDINGS, SERVED_BINDINGS, Language
from app.generate.source import CardUnreachable, SourceError, load_source
from app.generate.write import GeneratorMissing, start_commands, write
from app.protocol.bindings import from_value
from app.protocol.types import Binding
from app.spec.variables import parse_var

PROG = "a2a-workbench generate-server"
EXIT_UNREACHABLE = 2


def _bindings(values: list[str]) -> frozenset[Binding]:
    chosen: set[Binding] = set()
    for value in values:
        for item in value.replace(",", " ").split():
            binding = from_value(item.upper())
            if binding is None or binding not in ALL_BINDINGS:
                names = ", ".join(b.value for b in SERVED_BINDINGS)
                raise CliUsageError(f"unknown binding {item!r} (choose from {names})")
            chosen.add(binding)
    return frozenset(chosen)


def build_parser() -> argparse.ArgumentParser:
    """The ``generate-server`` argument parser (errors raise ``CliUsageError``)."""
    parser = cli.parser(PROG, "Write a runnable A2A server project from an Agent Card or spec.")
    parser.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="CARD_URL_OR_FILE|SPEC",
        help="a card URL, a card file, or an OpenAPI spec with saved x-a2a requests",
    )
    parser.add_argument("--operation", metavar="ID", help="in a spec: the saved request's card")
    parser.add_argument(
        "--env", default="", metavar="NAME", help="in a spec: the environment for agentCardUrl"
    )
    parser.add_argument(
        "--var", action="append", default=[], metavar="NAME=VALUE", help="a variable's value"
    )
    parser.add_argument("--lang", required=True, choices=[lang.value for lang in Language])
    parser.add_argument("--out", required=True, metavar="DIR", help="the project directory")
    parser.add_argument("--host", default="127.0.0.1", help="listen host (default %(default)s)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default %(default)s)")
    parser.add_argument(
        "--grpc-port", type=int, default=50051, help="gRPC port (default %(default)s)"
    )
    parser.add_argument(
        "--bindings",
        nargs="+",
        default=[b.value for b in SERVED_BINDINGS],
        metavar="BINDING",
        help="bindings served: JSONRPC, HTTP+JSON, GRPC (default: all three)",
    )
    parser.add_argument(
        "--compat-0.3",
        dest="compat_v03",
        action="store_true",
        help="also serve protocol 0.3 (Python: the SDK's compatibility layer)",
    )
    parser.add_argument("--force", action="store_true", help="write into a non-empty --out")
    return parser


def _usage_exit(detail: str) -> int:
    return cli.usage_exit(detail, stderr_line=f"{PROG}: error: {detail}")


def main(argv: list[str]) -> int:
    """Runs ``generate-server``; returns the exit status (module docstring)."""
    try:
        args = build_parser().parse_args(argv)
        bindings = _bindings(args.bindings)
        values = dict(parse_var(v) for v in args.var)
    except UsageError as exc:
        return _usage_exit(exc.detail if isinstance(exc, CliUsageError) else str(exc))
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    language = Language(args.lang)
    out = Path(args.out)
    try:
        check_dir(out, force=args.force)
        loaded = asyncio.run(
            load_source(args.source, operation=args.operation, environment=args.env, values=values)
        )
        result = plan_from_card(
            loaded.card,
            language=language,
            host=args.host,
            port=args.port,
            grpc_port=args.grpc_port,
            bindings=bindings,
            compat_v03=args.compat_v03,
        )
    except CardUnreachable as exc:
        say(f"{PROG}: {exc}")
        return EXIT_UNREACHABLE
    except (SourceError, OutputDirError, ValueError) as exc:
        return _usage_exit(str(exc))
    say(f"card: {loaded.origin}", stdout=True)
    for note in result.notes:
        say(f"note: {note}", stdout=True)
    for problem in result.problems:
        where = f"{problem.path}: " if problem.path else ""
        say(f"{problem.severity.value}: {where}{problem.message}")
    if result.errors:
        return _usage_exit("the card the server would publish is not valid (errors above)")
    try:
        written = write(result.plan, out, force=args.force)
    except (OutputDirError, GeneratorMissing) as exc:
        return _usage_exit(str(exc))
    print(f"wrote {len(written)} files to {out}:")
    for path in written:
        print(f"  {path.relative_to(out)}")
    install, start = start_commands(language, out)
    print("start it:")
    print(f"  {install}")
    print(f"  {start}")
    return 0
