"""The server's MCP prompts: two investigations a user starts by name, each a chain of the
server's own tools (card → check → send), spelt out for the model."""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer


def register(server: MCPServer[Any]) -> None:
    """Add the prompts to ``server``."""

    @server.prompt(name="debug_agent", title="Debug this agent")
    def debug_agent(url: str) -> str:
        """Find out what is wrong with an A2A agent, from its card to a real exchange."""
        return (
            f"Debug the A2A agent at {url} with the a2a-workbench tools, in this order:\n"
            f"1. fetch_card with url={url!r}: say which protocol versions and bindings the "
            "card offers, which interface a 1.0 and a 0.3 client would pick, and every "
            "problem of error severity with its JSON path.\n"
            "2. If the card is signed and I have given you a JWKS, verify_card_signature.\n"
            "3. check_agent with the card URL: list every failed and warned check with its "
            "spec section and a2a-tck category; use history_show on the exchanges a failure "
            "names to see what the agent actually answered.\n"
            "4. send a message (text 'hello') to the interface a 1.0 client would pick; if "
            "the card claims streaming, also SendStreamingMessage with text 'stream 3'.\n"
            "5. For any answer in the other protocol version's shape, explain_versions.\n"
            "Finish with a short diagnosis: what is wrong, the spec section for each point, "
            "and the smallest change to the agent that fixes it. Never ask me for credential "
            "values: credentials go by reference (an environment variable's name, or a saved "
            "request of my collections)."
        )

    @server.prompt(name="why_did_this_request_fail", title="Why did this request fail")
    def why_did_this_request_fail(history_id: str = "", url: str = "") -> str:
        """Explain why a request failed: from its History entry (or the newest failure to
        a URL), through the card and a check, to a corrected request."""
        if history_id:
            start = f"1. history_show entry_id={history_id}."
        elif url:
            start = (
                f"1. history_search text={url!r}: take the newest entry whose outcome is not "
                "ok, then history_show it."
            )
        else:
            start = (
                "1. history_search (no filter): take the newest entry whose outcome is not "
                "ok, then history_show it."
            )
        return (
            "Find out why an A2A request failed, with the a2a-workbench tools:\n"
            f"{start} Read its outcome, errors (kind, code, A2A error name), findings and "
            "what was sent.\n"
            "2. fetch_card for the agent (the entry's endpoint's base URL): does the request "
            "use a binding, protocol version and URL the card offers? Is a credential or "
            "an extension required?\n"
            "3. If the request's shape is in doubt, explain_versions on its body.\n"
            "4. check_agent with only=['core', 'errors'] to see whether the agent itself "
            "answers correctly.\n"
            "5. send the corrected request and compare.\n"
            "Answer with the cause (the request, the agent, or the network), the evidence "
            "(History ids, spec sections) and the corrected request."
        )
