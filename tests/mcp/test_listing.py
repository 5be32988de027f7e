"""What a coding assistant sees first: the server initializes over stdio and lists its
tools (names, schemas, truthful annotations), resources and prompts."""

from __future__ import annotations

from typing import Any

from tests.mcp.harness import stdio

TOOLS = {
    # name: (read_only, open_world)
    "fetch_card": (True, True),
    "validate_card": (True, False),
    "verify_card_signature": (True, False),
    "send": (False, True),
    "get_task": (True, True),
    "cancel_task": (False, True),
    "check_agent": (False, True),
    "run_collection": (False, True),
    "history_search": (True, False),
    "history_show": (True, False),
    "list_collections": (True, False),
    "list_saved_requests": (True, False),
    "explain_versions": (True, False),
    "replay_start": (False, False),
    "replay_stop": (False, False),
}


async def test_initialize_lists_the_tools_resources_and_prompts() -> None:
    async with stdio() as client:
        info = client.server_info
        instructions = client.instructions or ""
        tools = {t.name: t for t in (await client.list_tools()).tools}
        templates = (await client.list_resource_templates()).resource_templates
        resources = (await client.list_resources()).resources
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
    assert info is not None and info.name == "a2a-workbench"
    assert "by reference" in instructions  # what a model must know before the first call
    assert set(tools) == set(TOOLS)
    for name, (read_only, open_world) in TOOLS.items():
        tool = tools[name]
        notes = tool.annotations
        assert notes is not None and notes.title, name
        assert (notes.read_only_hint, notes.open_world_hint) == (read_only, open_world), name
        if not read_only:
            assert notes.destructive_hint is not None, name
        assert tool.description and len(tool.description) > 80, name  # written for a model
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None, name
        for prop, schema in tool.input_schema.get("properties", {}).items():
            assert _described(schema, tool.input_schema), f"{name}.{prop} has no description"
    assert {t.uri_template for t in templates} == {
        "a2a-wb://collections/{collection}/{operation}",
        "a2a-wb://history/{entry_id}",
    }
    uris = {str(r.uri) for r in resources}
    assert "a2a-wb://check/last" in uris
    # The shipped example collections' saved requests are listed by name.
    assert any(u.startswith("a2a-wb://collections/demo-agent.a2a.yaml-") for u in uris)
    assert set(prompts) == {"debug_agent", "why_did_this_request_fail"}
    assert [a.name for a in prompts["debug_agent"].arguments or []] == ["url"]


def _described(schema: dict[str, Any], root: dict[str, Any]) -> bool:
    """A property carries a description (directly, or on the model it refers to)."""
    if schema.get("description"):
        return True
    refs = [s.get("$ref", "") for s in schema.get("anyOf", [])] + [schema.get("$ref", "")]
    defs = root.get("$defs", {})
    return any(defs.get(r.rsplit("/", 1)[-1], {}).get("description") for r in refs if r)
