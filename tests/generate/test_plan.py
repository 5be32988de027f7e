"""The plan: the card a generated server publishes, from 1.0 and 0.3 cards, and refusals."""

from __future__ import annotations

import pytest

from app.generate.plan import plan_from_card
from app.generate.project_model import Language
from app.protocol.card.card_shape import CardShape, detect_shape
from app.protocol.types import Binding
from tests.generate.cards import card_03, demo_card


def test_demo_card_is_rewritten_for_the_chosen_address() -> None:
    result = plan_from_card(demo_card(), language=Language.PYTHON, host="0.0.0.0", port=9000)
    card = result.plan.card
    assert result.problems == ()
    assert [(i["protocolBinding"], i["url"]) for i in card["supportedInterfaces"]] == [
        ("JSONRPC", "http://0.0.0.0:9000/"),
        ("HTTP+JSON", "http://0.0.0.0:9000/rest"),
        ("GRPC", "http://0.0.0.0:50051"),
    ]
    assert {i["protocolVersion"] for i in card["supportedInterfaces"]} == {"1.0"}
    assert "signatures" not in card
    assert card["securitySchemes"] == {
        "bearerAuth": {"httpAuthSecurityScheme": {"scheme": "bearer"}}
    }
    assert card["capabilities"] == {"streaming": True}
    assert [s["id"] for s in card["skills"]] == ["sum", "echo", "stream", "ask", "fail"]
    assert card["name"] == demo_card()["name"]
    assert any("signatures" in note for note in result.notes)


def test_bindings_and_compat_choose_the_interfaces() -> None:
    result = plan_from_card(
        demo_card(),
        language=Language.NODE,
        bindings=frozenset({Binding.GRPC, Binding.JSONRPC}),
        compat_v03=True,
        host="::1",
    )
    got = [
        (i["protocolBinding"], i["protocolVersion"], i["url"])
        for i in result.plan.card["supportedInterfaces"]
    ]
    assert got == [
        ("JSONRPC", "1.0", "http://[::1]:8000/"),
        ("GRPC", "1.0", "http://[::1]:50051"),
        ("JSONRPC", "0.3", "http://[::1]:8000/"),
        ("GRPC", "0.3", "http://[::1]:50051"),
    ]
    assert result.plan.compat_v03 and result.plan.language is Language.NODE


def test_03_card_is_reshaped_into_a_10_card() -> None:
    result = plan_from_card(card_03(), language=Language.PYTHON)
    card = result.plan.card
    assert detect_shape(card) is CardShape.V1_0
    assert result.errors == ()
    for gone in ("url", "preferredTransport", "protocolVersion", "security"):
        assert gone not in card
    assert card["provider"] == {"organization": "Example", "url": "https://example.com"}
    assert card["version"] == "2.1.0"
    assert card["defaultOutputModes"] == ["application/json"]
    assert card["skills"] == [
        {
            "id": "forecast",
            "name": "Forecast",
            "description": "Tomorrow's weather",
            "tags": ["weather"],
        }
    ]
    notes = " ".join(result.notes)
    assert "reshaped the 0.3 card" in notes
    assert "oauth" in notes and "per-skill" in notes


def test_missing_fields_are_filled_and_problems_reported() -> None:
    result = plan_from_card({"name": "Bare"}, language=Language.PYTHON)
    card = result.plan.card
    assert card["version"] == "1.0.0" and card["description"] == "Bare"
    assert card["defaultInputModes"] == ["text/plain"]
    nameless = plan_from_card({"description": "no name"}, language=Language.PYTHON)
    assert any(p.path == "name" for p in nameless.errors)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bindings": frozenset()}, "at least one binding"),
        ({"port": 0}, "1..65535"),
        ({"grpc_port": 70000}, "1..65535"),
        ({"port": 9000, "grpc_port": 9000}, "must differ"),
        ({"host": " "}, "host is empty"),
    ],
)
def test_refusals(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        plan_from_card(demo_card(), language=Language.PYTHON, **kwargs)  # type: ignore[arg-type]
