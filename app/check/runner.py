"""Run every check against one agent: read its card, exercise each interface, yield records.

    async for event in run_check(CheckOptions(card_url)):
        ...

The stream is :mod:`app.check.check_model`'s: one ``CheckStarted``, ``CheckProgress`` before each
check, a ``CheckResult`` per check and interface, and one final ``CheckEnded``. Every call
is bounded by ``call_timeout_s``; the whole run by ``budget_s`` (the checks left when it
runs out are skipped, the end reason is ``budget``). The checks run one after another in
the consumer's task: closing the stream or cancelling that task stops the run at once and
leaves nothing running. The agent is ``unreachable`` when its card cannot be read or no
interface answers.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx

from app.check.calls import CREDENTIAL_HEADERS, CallSettings, HistorySink
from app.check.check_model import (
    CheckArea,
    CheckEnded,
    CheckEvent,
    CheckProgress,
    CheckResult,
    CheckStarted,
    CheckStatus,
    EndReason,
)
from app.check.checks_card import NO_ANSWER
from app.check.context import BudgetExhausted, CheckContext
from app.check.registry import (
    CARD_AVAILABLE,
    CHECKS,
    CREDENTIALS_WITHHELD,
    INTERFACE_ANSWERS,
    RUNNER_TCK,
)
from app.check.spec import CheckSpec, Scope, Verdict, skipped
from app.check.target import Target
from app.errors import UsageError
from app.protocol.bindings import binding_named, traits
from app.protocol.card.card_auth import CARD_AUTH_HINT, CardAuth
from app.protocol.card.fetch import fetch_card
from app.protocol.card.read import (
    CardFindings,
    CardRead,
    ReadOutcome,
    examine,
    not_a_card,
    read_card,
)
from app.protocol.card.view import CardView
from app.protocol.clock import Clock
from app.protocol.net.auth import AuthConfig, AuthKind
from app.protocol.net.http import client_for
from app.protocol.net.network import DIRECT, NetworkOptions
from app.protocol.types import Binding, ProtocolVersion

log = logging.getLogger(__name__)


MAX_INTERFACES = 32
"""Interfaces one run exercises: a card listing thousands must not make it run for hours."""


@dataclass(frozen=True)
class CheckOptions:
    """What to check and how (the ``check`` command's flags, the GUI's dialog)."""

    card_url: str
    """The card's URL (a base URL gets ``/.well-known/agent-card.json``) or a local file."""
    interface: int | None = None
    """Index into the card's interfaces; None checks every interface."""
    auth: AuthConfig = field(default_factory=AuthConfig.none)
    headers: tuple[tuple[str, str], ...] = ()
    network: NetworkOptions = field(default_factory=NetworkOptions)
    call_timeout_s: float = 10.0
    budget_s: float = 120.0
    history: HistorySink | None = None
    """Record every exchange here; results then carry the history entry ids."""
    extensions: tuple[str, ...] = ()
    """Extensions to activate on every call; those the card requires are added."""
    message_text: str = "hello"
    """The text of a plain send."""
    task_text: str = "stream 2 10"
    """The text of a send that should create a task (the demo and test peers' command)."""
    only: tuple[str, ...] = ()
    """Run only checks whose id starts with one of these (empty: all)."""
    command: str = ""
    """The command line that starts the agent of a stdio interface."""
    push_public_url: str = ""
    """The address agents should call for the push checks' receiver (a tunnel to it)."""
    push_port: int = 0
    """The local port of the push checks' receiver (0: any free one)."""
    card_auth: bool = False
    """Send the run's credentials to the card URL too (on its own origin only): a card
    behind them (``--card-auth``)."""
    card: CardRead | None = None
    """The card already read from ``card_url``, checked as it is rather than read again: a
    caller that vetted its interfaces (the MCP server's allow-list) must get the run it
    vetted, not the one of a card its server changed meanwhile."""


@dataclass(frozen=True)
class _Planned:
    spec: CheckSpec
    target: Target | None

    @property
    def interface(self) -> str:
        if self.target is None:
            return ""
        if self.spec.scope is Scope.VERSION:
            return f"A2A {self.target.version.value}: every binding"
        return self.target.label


async def run_check(options: CheckOptions) -> AsyncIterator[CheckEvent]:
    """Check the agent ``options.card_url`` describes (module docstring).

    Raises:
        UsageError: ``options.interface`` is not an index of the card's interfaces.
    """
    clock = Clock()
    reading = await _read(options)
    findings = examine(reading)
    view = findings.view
    if view is None or not isinstance(reading.card, dict):
        counts = {**dict.fromkeys(CheckStatus, 0), CheckStatus.FAIL: 1}
        yield CheckStarted(options.card_url, "", (), 1)
        yield _unavailable(reading, options.card_url)
        yield CheckEnded(EndReason.UNREACHABLE, counts, clock.now() * 1000.0, "card not read")
        return
    targets, unspeakable = _targets(view, options.interface, reading.source)
    http = await asyncio.to_thread(
        client_for, options.card_url, DIRECT, timeout=options.call_timeout_s
    )
    checks = _checks(options, reading, findings, targets, unspeakable, http, clock)
    try:
        async with aclosing(checks):
            async for event in checks:
                yield event
    finally:
        await http.aclose()


async def _checks(
    options: CheckOptions,
    reading: CardRead,
    findings: CardFindings,
    targets: tuple[Target, ...],
    unspeakable: list[tuple[str, str]],
    http: httpx.AsyncClient,
    clock: Clock,
) -> AsyncGenerator[CheckEvent, None]:
    counts: dict[CheckStatus, int] = dict.fromkeys(CheckStatus, 0)

    def result(item: CheckResult) -> CheckResult:
        counts[item.status] += 1
        return item

    view = findings.view
    assert view is not None and isinstance(reading.card, dict)
    ctx = CheckContext(
        card=reading.card,
        view=view,
        targets=targets,
        settings=CallSettings(
            options.auth,
            options.headers,
            options.network,
            options.call_timeout_s,
            options.history,
            _extensions(view, options.extensions),
            http,
            options.command,
            options.push_public_url,
            options.push_port,
        ),
        budget_s=options.budget_s,
        message_text=options.message_text,
        task_text=options.task_text,
        clock=clock,
        withheld=_off_host(targets, reading.source),
    )
    ctx.extras["problems"] = findings.problems
    if reading.fetch is not None:
        ctx.extras["card_headers"] = reading.fetch.headers
    plan = _plan(targets, options.only)
    labels = tuple(t.label for t in targets)
    warned_off = [t for t in targets if t.index in ctx.withheld] if _credentials(options) else []
    # The card's availability, each interface not spoken and each withheld one are results
    # too: the progress counts them, so that "N of N checks" is the number of results.
    before = 1 + len(unspeakable) + len(warned_off)
    count = before + len(plan)
    yield CheckStarted(options.card_url, view.name, labels, count)
    yield result(_available(options.card_url))
    for label, why in unspeakable:
        yield result(_not_spoken(label, why))
    for target in warned_off:
        yield result(_withheld(target, reading.source))
    reason = EndReason.COMPLETED
    message = ""
    answered: list[bool] = []
    for done, planned in enumerate(plan):
        yield CheckProgress(before + done, count, planned.spec.title)
        began = clock.now()
        if reason is EndReason.BUDGET:
            verdict = skipped(f"the run's budget of {options.budget_s:g} s ran out")
        else:
            verdict, spent = await _run_one(ctx, planned)
            if spent:
                reason = EndReason.BUDGET
                message = f"the budget of {options.budget_s:g} s ran out"
        took_ms = (clock.now() - began) * 1000.0
        yield result(_result(ctx, planned, verdict, took_ms))
        if planned.spec.check_id == INTERFACE_ANSWERS:
            answered.append(verdict.status is CheckStatus.PASS or not _unreached(verdict))
            if len(answered) == len(targets) and not any(answered):
                yield CheckEnded(
                    EndReason.UNREACHABLE, counts, clock.now() * 1000.0, "no interface answered"
                )
                return
    if not targets:
        reason, message = EndReason.UNREACHABLE, "the card lists no interface this app speaks"
    await _flush(options.history)
    yield CheckEnded(reason, counts, clock.now() * 1000.0, message)


def _unreached(verdict: Verdict) -> bool:
    return verdict.detail.startswith(NO_ANSWER)


async def _run_one(ctx: CheckContext, planned: _Planned) -> tuple[Verdict, bool]:
    """The check's verdict, and whether the run's budget is used up."""
    ctx.begin(planned.spec.check_id)
    left = ctx.remaining()
    out_of_budget = skipped(f"the run's budget of {ctx.budget_s:g} s ran out during this check")
    if left <= 0:
        return out_of_budget, True
    try:
        async with asyncio.timeout(left):
            return await planned.spec.rule(ctx, planned.target), False
    except (BudgetExhausted, TimeoutError):
        return out_of_budget, True
    except Exception as exc:  # a rule's own bug must not end the run or hide the others
        log.exception("check %s failed", planned.spec.check_id)
        detail = f"the check could not run: {type(exc).__name__}: {exc}"
        return Verdict(CheckStatus.WARN, detail), False


def _result(
    ctx: CheckContext, planned: _Planned, verdict: Verdict, duration_ms: float
) -> CheckResult:
    spec = planned.spec
    version = planned.target.version if planned.target is not None else None
    return CheckResult(
        check_id=spec.check_id,
        area=spec.area,
        title=spec.title,
        status=verdict.status,
        section=spec.section(version),
        detail=verdict.detail,
        interface=planned.interface,
        exchanges=ctx.exchanges(),
        duration_ms=duration_ms,
        tck=spec.tck_for(_binding(planned)),
    )


def _binding(planned: _Planned) -> Binding | None:
    """The one binding a result is about; None for a card-wide or version-wide one."""
    if planned.target is None or planned.spec.scope is not Scope.INTERFACE:
        return None
    return planned.target.binding


def _plan(targets: tuple[Target, ...], only: tuple[str, ...]) -> list[_Planned]:
    plan: list[_Planned] = []
    for spec in CHECKS:
        if only and spec.check_id != INTERFACE_ANSWERS and not spec.check_id.startswith(only):
            continue
        if spec.scope is Scope.CARD:
            plan.append(_Planned(spec, None))
        elif spec.scope is Scope.INTERFACE:
            plan += [_Planned(spec, t) for t in targets]
        else:
            firsts = {t.version: t for t in reversed(targets)}
            plan += [_Planned(spec, firsts[v]) for v in ProtocolVersion if v in firsts]
    return plan


def _targets(
    view: CardView, index: int | None, card_url: str
) -> tuple[tuple[Target, ...], list[tuple[str, str]]]:
    interfaces = list(enumerate(view.interfaces))
    if index is not None:
        if not 0 <= index < len(interfaces):
            raise UsageError(
                f"--interface {index}: the card lists {len(interfaces)} interface(s) (0-based)"
            )
        interfaces = [interfaces[index]]
    targets: list[Target] = []
    unspeakable: list[tuple[str, str]] = []
    if len(interfaces) > MAX_INTERFACES:
        unspeakable.append(
            (
                f"interfaces {MAX_INTERFACES}–{len(interfaces) - 1}",
                f"not checked: a run checks the first {MAX_INTERFACES} of the card's "
                f"{len(interfaces)} interfaces (--interface N checks any one)",
            )
        )
        interfaces = interfaces[:MAX_INTERFACES]
    for i, iface in interfaces:
        binding = iface.known_binding
        if not iface.speakable or iface.major_minor is None or binding is None:
            unspeakable.append((f"{iface.binding} {iface.protocol_version} {iface.url}", _UNSPOKEN))
            continue
        targets.append(
            Target(
                i,
                _absolute(iface.url, iface.binding, card_url),
                binding,
                ProtocolVersion(iface.major_minor),
                iface.tenant,
            )
        )
    return tuple(targets), unspeakable


def host_of(url: str) -> str:
    """The host name of an interface or card URL, lower-case (gRPC's ``host:port`` too);
    ``""`` when it has none."""
    try:
        host = urlsplit(url if "://" in url else f"//{url}").hostname
    except ValueError:
        return ""
    return (host or "").lower().rstrip(".")


def _off_host(targets: tuple[Target, ...], card_url: str) -> frozenset[int]:
    """The interfaces on another host than the card's: the run's credentials are for the
    host the user pointed at, not for any host a card names. A card read from a file has no
    host: the user chose it, so every interface gets them."""
    if "://" not in card_url:
        return frozenset()
    card_host = host_of(card_url)
    return frozenset(t.index for t in targets if not card_host or host_of(t.url) != card_host)


def _credentials(options: CheckOptions) -> bool:
    return options.auth.kind is not AuthKind.NONE or any(
        name.lower() in CREDENTIAL_HEADERS for name, _ in options.headers
    )


def _extensions(view: CardView, given: tuple[str, ...]) -> tuple[str, ...]:
    # A required extension left out would refuse every call (extensions.required judges that).
    required = [e.uri for e in view.capabilities.extensions if e.required and e.uri]
    return tuple(dict.fromkeys((*given, *required)))


def _absolute(url: str, binding: str, card_url: str) -> str:
    """A relative HTTP interface URL resolved against the card's URL (as a browser would;
    ``a2a-workbench card`` flags it); gRPC's ``host:port`` and absolute URLs unchanged."""
    known = binding_named(binding)
    if (known is not None and traits(known).url.target) or "://" in url or "://" not in card_url:
        return url
    return urljoin(card_url, url)


async def _read(options: CheckOptions) -> CardRead:
    if options.card is not None:
        return options.card
    path = Path(options.card_url)
    if "://" not in options.card_url and path.is_file():
        return await asyncio.to_thread(read_card, path)
    auth = (
        CardAuth.for_endpoint(options.card_url, options.auth, options.headers)
        if options.card_auth
        else None
    )
    # A 1.0 client asks for the 1.0 card: some servers shape it by A2A-Version.
    fetched = await fetch_card(
        options.card_url,
        a2a_version="1.0",
        timeout=options.call_timeout_s,
        network=options.network,
        auth=auth,
    )
    if fetched.status == 404 and fetched.legacy_hint:
        legacy = await fetch_card(
            fetched.legacy_hint,
            a2a_version="1.0",
            timeout=options.call_timeout_s,
            network=options.network,
            auth=auth,
        )
        if legacy.status is not None and legacy.status != 404:
            fetched = legacy
    return read_card(fetched)


_AVAILABLE_TITLE = "the Agent Card can be read"
_AVAILABLE_SECTION = "A2A 1.0 §8.2"


def _available(source: str) -> CheckResult:
    return CheckResult(
        CARD_AVAILABLE, CheckArea.CARD, _AVAILABLE_TITLE, CheckStatus.PASS, _AVAILABLE_SECTION,
        f"read from {source}", tck=RUNNER_TCK[CARD_AVAILABLE],
    )  # fmt: skip


def _unavailable(reading: CardRead, source: str) -> CheckResult:
    if reading.outcome is ReadOutcome.FAILED:
        why = reading.error or "nothing arrived"
    elif reading.outcome is ReadOutcome.CARD:
        # An HTML page (a web front end at the card URL) or bad JSON, said as the card
        # page and ``card`` say it.
        why = not_a_card(reading) if reading.parse_error else "the document is not a JSON object"
    else:
        status = reading.fetch.status if reading.fetch is not None else None
        why = f"{reading.outcome.value} (HTTP {status})"
        if status in (401, 403):
            why += f"; {CARD_AUTH_HINT}"
    return CheckResult(
        CARD_AVAILABLE, CheckArea.CARD, _AVAILABLE_TITLE, CheckStatus.FAIL, _AVAILABLE_SECTION,
        f"{source}: {why}", tck=RUNNER_TCK[CARD_AVAILABLE],
    )  # fmt: skip


def _withheld(target: Target, card_url: str) -> CheckResult:
    return CheckResult(
        CREDENTIALS_WITHHELD,
        CheckArea.CARD,
        "credentials go only to the card's host",
        CheckStatus.WARN,
        "A2A 1.0 §7",
        f"{target.label} is not on {host_of(card_url) or card_url}'s host: it is called "
        "without the run's credentials",
        target.label,
        tck=RUNNER_TCK[CREDENTIALS_WITHHELD],
    )


_SPOKEN = [b.value for b in Binding]
_UNSPOKEN = (
    "this app speaks A2A 1.0 and 0.3 over " + ", ".join(_SPOKEN[:-1]) + " and " + _SPOKEN[-1]
)


_INTERFACE_SPEC = next(spec for spec in CHECKS if spec.check_id == INTERFACE_ANSWERS)


def _not_spoken(label: str, why: str) -> CheckResult:
    return CheckResult(
        INTERFACE_ANSWERS,
        CheckArea.CARD,
        "the interface answers at its URL in its binding and version",
        CheckStatus.SKIP,
        "A2A 1.0 §8.3",
        why,
        label,
        tck=_INTERFACE_SPEC.tck,
    )


async def _flush(history: HistorySink | None) -> None:
    if history is not None:
        await asyncio.to_thread(history.flush, 10.0)
