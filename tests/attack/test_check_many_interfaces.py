"""A card listing thousands of interfaces: the run exercises a bounded number of them."""

from __future__ import annotations

import time

from app.check.check_model import CheckStatus
from app.check.runner import MAX_INTERFACES, CheckOptions
from tests.attack.stub import card_with, hostile_agent
from tests.check.helpers import collect

MANY = 10_000


def _card(port: int) -> dict[str, object]:
    return card_with([f"http://127.0.0.1:{port}/i{n}/" for n in range(MANY)])


async def test_a_card_with_ten_thousand_interfaces_is_checked_on_the_first_32() -> None:
    with hostile_agent(_card) as stub:
        began = time.monotonic()
        _, results, _ = await collect(
            CheckOptions(f"{stub.base}/", only=("card.interface",), budget_s=60.0)
        )
        took = time.monotonic() - began
    called = {s.path for s in stub.seen if s.path.startswith("/i")}
    assert len(called) == MAX_INTERFACES
    answers = [r for r in results if r.check_id == "card.interface-answers"]
    assert sum(r.status is CheckStatus.PASS for r in answers) == MAX_INTERFACES
    capped = [r for r in answers if r.status is CheckStatus.SKIP]
    assert len(capped) == 1
    assert f"first {MAX_INTERFACES} of the card's {MANY} interfaces" in capped[0].detail
    assert took < 30.0


async def test_an_agent_that_never_answers_is_bounded_by_the_call_timeout() -> None:
    def card(port: int) -> dict[str, object]:
        return card_with([f"http://127.0.0.1:{port}/slow/"])

    with hostile_agent(card, stall_s=5.0) as stub:
        began = time.monotonic()
        _, results, _ = await collect(
            CheckOptions(f"{stub.base}/", only=("core.send",), call_timeout_s=0.5, budget_s=60.0)
        )
        took = time.monotonic() - began
    assert took < 4.0
    answers = [r for r in results if r.check_id == "card.interface-answers"]
    assert answers and answers[0].status is not CheckStatus.PASS
