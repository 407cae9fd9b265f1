"""Tools for the tool-search tests: a small catalogue of bridged MCP tools."""

from __future__ import annotations

from typing import Any

from toolwire.context import ToolContext
from toolwire.results import ToolResult, ok
from toolwire.tools import Tool


async def _echo(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(f"ran for {ctx.session_id}")


def make(name: str, description: str, *, defer: bool = True, **params: str) -> Tool:
    """A tool whose call answers ``ran for <session>``."""
    schema = {
        "type": "object",
        "properties": {
            key: {"type": "string", "description": text} for key, text in params.items()
        },
    }
    return Tool(
        name=name, description=description, schema=schema, execute=_echo, defer_loading=defer
    )


def catalogue() -> list[Tool]:
    """Confusable tools from several servers, all deferred."""
    return [
        make(
            "mcp__github__create_issue",
            "Create a new issue in a GitHub repository.",
            title="Issue title",
            body="Issue body",
        ),
        make(
            "mcp__github__list_issues", "List issues in a GitHub repository.", state="open/closed"
        ),
        make("mcp__jira__jira_create_issue", "Create a new Jira issue.", summary="Summary"),
        make(
            "mcp__slack__slack_post_message",
            "Post a new message to a Slack channel",
            channel_id="The ID of the channel",
            text="The message text",
        ),
        make(
            "mcp__stripe__create_refund",
            "This tool will refund a payment intent in Stripe.",
            payment_intent="The ID of the PaymentIntent to refund",
        ),
        make(
            "mcp__maps__maps_elevation",
            "Get elevation data for locations on the earth",
            locations="Array of locations; weather is not included",
        ),
    ]


def _materialise(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _materialise(item) for key, item in value.items()}
    if isinstance(value, list | tuple) or type(value).__name__ == "ValidatorIterator":
        return [_materialise(item) for item in value]
    return value


def conforms(typed_dict: Any, value: Any) -> bool:
    """``value`` validates as the SDK's TypedDict and loses nothing (no unknown keys)."""
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(typed_dict)
    validated = adapter.validate_python(value)
    return bool(_materialise(validated) == _materialise(value))
