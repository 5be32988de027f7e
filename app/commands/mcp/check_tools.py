"""``check_agent``: does an agent do what its card says, on every binding?

It runs :func:`app.check.runner.run_check` as ``check`` does: every exchange is recorded in
the history (each finding names its entries), progress is reported check by check, and the
report is kept as the ``a2a-wb://check/last`` resource. Before anything is sent, every
interface the card names must be on the allow-list: a card is text its server wrote.

The result lists the failures and warnings (``include="problems"``, the default) with the
counts of everything: a full run on a healthy agent is ~200 passes and n/a, ~95 KB that
would fill a model's context with nothing to act on. ``include="all"`` lists every result;
the resource always holds them all.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import urljoin

from mcp.server import MCPServer
from pydantic import BaseModel, Field

from app.check.check_model import (
    CheckEnded,
    CheckProgress,
    CheckResult,
    CheckStarted,
    EndReason,
)
from app.check.runner import CheckOptions, host_of, run_check
from app.commands.card import fetch
from app.commands.history import shared_store
from app.commands.mcp.credential_refs import CredentialRef, check_target, resolve
from app.commands.mcp.local_files import local_file
from app.commands.mcp.mcp_state import ServerState
from app.commands.mcp.tool_registry import ToolContext, add_tool
from app.commands.oauth import CliOAuth
from app.errors import UsageError
from app.protocol.bindings import traits
from app.protocol.card.read import CardRead, examine, read_card
from app.protocol.net.auth import AuthConfig
from app.protocol.oauth import OAuthError

_JUDGED = ("fail", "warn")
"""The statuses a default report lists: what the agent's author has to act on."""


class CheckFinding(BaseModel):
    """One check on one interface."""

    id: str = Field(description="The check's stable id, e.g. errors.task-not-found.")
    status: str = Field(description="pass, fail, warn, skip or n/a.")
    title: str
    area: str
    section: str = Field(description="The A2A spec section the rule comes from.")
    tck: list[str] = Field(
        description="The a2a-tck (A2A 1.0 branch) requirement ids it corresponds to "
        "(docs/CHECKS.md); empty when none."
    )
    detail: str = Field(description="Why it failed, was skipped or does not apply.")
    interface: str = Field(description="Binding, version and URL ('' for card-wide checks).")
    exchanges: list[int] = Field(description="History entry ids that show it (history_show).")


class CheckReport(BaseModel):
    """An agent checked against its card."""

    card_url: str
    agent: str
    interfaces: list[str] = Field(description="The interfaces checked.")
    summary: dict[str, int] = Field(description="How many checks passed, failed, warned…")
    reason: str = Field(description="completed, unreachable, budget or cancelled.")
    message: str = ""
    elapsed_ms: float = 0.0
    findings: list[CheckFinding] = Field(
        description="Failures and warnings (include='problems'), or every result, failures "
        "and warnings first, then the rest in run order (include='all')."
    )
    left_out: int = Field(
        default=0,
        description="Results not listed in findings (passes, skips, n/a with "
        "include='problems'); counted in summary, listed by a2a-wb://check/last.",
    )


def register(server: MCPServer[Any], state: ServerState) -> None:
    """Add ``check_agent`` to ``server``."""

    async def check_agent(
        ctx: ToolContext,
        card_url: Annotated[
            str, Field(description="The agent's base URL or card URL (or a card file).")
        ],
        interface: Annotated[
            int | None,
            Field(ge=0, description="Check only the card's interface N (0-based); default all."),
        ] = None,
        only: Annotated[
            list[str],
            Field(description="Run only checks whose id starts with one of these (e.g. 'core')."),
        ] = [],  # noqa: B006 - pydantic copies defaults
        auth: Annotated[
            CredentialRef | None,
            Field(description="The credential, by reference; sent only to the card's host."),
        ] = None,
        timeout: Annotated[float, Field(gt=0, le=120, description="Seconds per call.")] = 10.0,
        budget: Annotated[
            float, Field(gt=0, le=600, description="Seconds for the whole run.")
        ] = 120.0,
        include: Annotated[
            Literal["problems", "all"],
            Field(
                description="'problems' (default): only failures and warnings in findings, "
                "with the counts of all; 'all': every result (passes and n/a too)."
            ),
        ] = "problems",
    ) -> CheckReport:
        """Check an agent against its own Agent Card on every interface and binding: the
        card's fields, each interface answering, send/get/list answers of the right shape,
        A2A errors in each binding's form, streaming, push notifications, the extended
        card, declared security, and parity between bindings. Returns a summary and every
        finding with its spec section, a2a-tck category and the History entries of the
        exchanges behind it; by default only the failures and warnings are listed (the
        summary counts every result; include='all' lists them all). Sends real messages to
        the agent; reports progress."""
        reading = await _check_interfaces(state, card_url, interface, timeout)
        credential = resolve(auth, state)
        if "://" in card_url:
            check_target(credential, card_url)
        creds = credential.auth
        if credential.oauth is not None:
            state.hosts.check(credential.oauth.token_url, "the OAuth token endpoint")
            try:
                token = await CliOAuth(credential.oauth, cache=state.tokens).token()
            except OAuthError as exc:
                raise UsageError(f"no OAuth 2 token for {credential.label}: {exc}") from exc
            creds = AuthConfig.bearer(token.access_token)
            state.ledger.add([token.access_token])
        options = CheckOptions(
            card_url=card_url,
            interface=interface,
            auth=creds,
            call_timeout_s=timeout,
            budget_s=budget,
            history=shared_store(),
            only=tuple(only),
            card=reading,
        )
        started: CheckStarted | None = None
        results: list[CheckResult] = []
        ended = CheckEnded(EndReason.CANCELLED)  # until the run's own end arrives
        async for event in run_check(options):
            if isinstance(event, CheckStarted):
                started = event
            elif isinstance(event, CheckProgress):
                await ctx.report_progress(event.done, event.total, event.current)
            elif isinstance(event, CheckResult):
                results.append(event)
            elif isinstance(event, CheckEnded):
                ended = event
        report = _report(card_url, started, results, ended)
        state.last_check = report.model_dump(mode="json")
        return report if include == "all" else _problems_only(report)

    add_tool(server, check_agent, title="Check an agent against its card", read_only=False,
             open_world=True, destructive=True)  # fmt: skip


async def _check_interfaces(
    state: ServerState, card_url: str, interface: int | None, timeout: float
) -> CardRead:
    """The card, read once, refused when its interfaces (the one chosen, or all) are not
    all allowed; the run checks this reading (a card read again may name other hosts).

    Raises:
        HostRefused: the card's host or one of its interfaces' hosts is not allowed, or an
            interface starts a command or reaches a socket file.
    """
    if "://" in card_url:
        state.hosts.check(card_url, "the card URL")
        reading = read_card(await fetch(card_url, "1.0", timeout))
    else:
        reading = read_card(local_file(card_url))
    view = examine(reading).view
    if view is None:
        return reading  # no card, nothing will be sent: the run reports it
    chosen = [i for n, i in enumerate(view.interfaces) if interface is None or n == interface]
    base = card_url if "://" in card_url else ""
    for iface in chosen:
        url = urljoin(base, iface.url) if base and "://" not in iface.url else iface.url
        what = f"the card's {iface.binding} interface"
        binding = iface.known_binding
        # A command or a socket file is refused; a relative URL no run can call is let be.
        local = binding is not None and (traits(binding).launches or not traits(binding).url.host)
        if binding is not None and (local or host_of(url)):
            state.hosts.check_binding(binding, url, what, own=False)
        elif host_of(url):
            state.hosts.check(url, what)
    return reading


def _problems_only(report: CheckReport) -> CheckReport:
    """``report`` listing only its failures and warnings; the counts stay whole."""
    problems = [f for f in report.findings if f.status in _JUDGED]
    left_out = len(report.findings) - len(problems)
    return report.model_copy(update={"findings": problems, "left_out": left_out})


def _report(
    card_url: str,
    started: CheckStarted | None,
    results: list[CheckResult],
    ended: CheckEnded,
) -> CheckReport:
    def finding(r: CheckResult) -> CheckFinding:
        return CheckFinding(
            id=r.check_id, status=r.status.value, title=r.title, area=r.area.value,
            section=r.section, tck=list(r.tck), detail=r.detail,
            interface=r.interface, exchanges=list(r.exchanges),
        )  # fmt: skip

    ordered = [r for r in results if r.status.value in _JUDGED]
    ordered += [r for r in results if r.status.value not in _JUDGED]
    return CheckReport(
        card_url=card_url,
        agent=started.agent_name if started else "",
        interfaces=list(started.interfaces) if started else [],
        summary={status.value: n for status, n in ended.counts.items()},
        reason=ended.reason.value,
        message=ended.message,
        elapsed_ms=round(ended.elapsed_ms, 1),
        findings=[finding(r) for r in ordered],
    )
