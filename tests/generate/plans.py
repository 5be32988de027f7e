"""Plans for the Node generator tests, made as the app makes them: from the demo card."""

from __future__ import annotations

from app.generate.plan import plan_from_card
from app.generate.project_model import ALL_BINDINGS, Language, ServerPlan
from app.protocol.types import Binding
from tests.generate.cards import demo_card


def demo_plan(
    language: Language = Language.NODE,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    grpc_port: int = 50051,
    bindings: frozenset[Binding] = ALL_BINDINGS,
    compat_v03: bool = False,
) -> ServerPlan:
    """The plan publishing the demo agent's card on ``host``/``port``/``grpc_port``.

    The card is renamed and described anew: the demo card's own words name this app,
    which a generated project must not.
    """
    card = demo_card()
    card["name"] = "Demo agent"
    card["description"] = "Sums numbers and echoes text (the generator tests' agent)."
    return plan_from_card(
        card,
        language=language,
        host=host,
        port=port,
        grpc_port=grpc_port,
        bindings=bindings,
        compat_v03=compat_v03,
    ).plan
