"""A test peer on FastMCP (`fastmcp==4.2.3`, itself on `mcp==2.3.0`).

FastMCP 4 serves both eras on every transport (the SDK underneath decides per connection).
Its own interactive API is era-split, and the tools here use each half where it applies:
legacy connections get `ctx.elicit(...)` (form) and, for what FastMCP 4 no longer wraps
(URL elicitation, sampling, roots), the SDK session's requests; 2026-07-28 connections get
FastMCP's guard pattern — the tool returns an `InputRequiredResult` and reads
`ctx.input_responses` on the retry (FastMCP seals `requestState` on the wire).

Offers the same as sdk_server.py:
  tools      echo(text); add(a, b) (outputSchema, structuredContent {"sum"}); slow(seconds)
             (progress 1/2 and an info log, then sleep; `cancelled <id>` on stderr);
             ask_name (form elicitation, default "World"); open_url (URL elicitation);
             sample (sampling/createMessage); roots (roots/list)
  resources  testenv://readme; template testenv://greeting/{name}
  prompts    hello(name)
  completion argument name of prompt hello / template greeting, from Ada, Alan, Bo
  logging    logging/setLevel (FastMCP's own)

Run through testenv/peers/fastmcp-server.sh MODE PORT (see _serve.py for the modes).
"""

from __future__ import annotations

import os

# Before fastmcp is imported: no banner, no rich logging on the stderr the tests read.
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ.setdefault("FASTMCP_LOG_LEVEL", "WARNING")

from dataclasses import dataclass  # noqa: E402

import anyio  # noqa: E402
import mcp_types as types  # noqa: E402
from fastmcp import Context, FastMCP  # noqa: E402
from mcp_types.version import MODERN_PROTOCOL_VERSIONS  # noqa: E402

import _serve  # noqa: E402

NAMES = ["Ada", "Alan", "Bo"]
README = "Hello from the FastMCP test peer."
NAME_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "default": "World"}},
    "required": ["name"],
}

mcp = FastMCP("mcpscope-fastmcp-peer", version="4.2.3-peer")


@dataclass
class Name:
    name: str = "World"


def modern(ctx: Context) -> bool:
    return ctx.request_context is not None and ctx.request_context.protocol_version in MODERN_PROTOCOL_VERSIONS


def round_one(key: str, request) -> types.InputRequiredResult:
    """Ask in the modern era: the retry brings the answer under `key`."""
    return types.InputRequiredResult(input_requests={key: request}, request_state=f"{key}-round-1")


def answer(ctx: Context, key: str):
    """The answer to `key` on a modern retry, or None on round one."""
    return (ctx.input_responses or {}).get(key)


@mcp.tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@dataclass
class Sum:
    sum: int


@mcp.tool
def add(a: int, b: int) -> Sum:
    """Add two integers; the sum is also structured content."""
    return Sum(sum=a + b)


@mcp.tool
async def slow(ctx: Context, seconds: float = 60) -> str:
    """Report progress and log, then sleep (to be cancelled)."""
    await ctx.report_progress(1, 2, "started")
    await ctx.info("slow started")
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        _serve.ack(f"cancelled {ctx.request_id}")
        raise
    return "slept"


NAME_REQUEST = types.ElicitRequest(
    params=types.ElicitRequestFormParams(message="What is your name?", requested_schema=NAME_SCHEMA)
)
URL_REQUEST = types.ElicitRequest(
    params=types.ElicitRequestURLParams(
        message="Please open the page.", url="https://example.com/consent", elicitation_id="consent-1"
    )
)
SAMPLE_REQUEST = types.CreateMessageRequest(
    params=types.CreateMessageRequestParams(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Say something."))],
        max_tokens=50,
    )
)


@mcp.tool
async def ask_name(ctx: Context) -> str | types.InputRequiredResult:
    """Ask the user's name (elicitation, form mode)."""
    if modern(ctx):
        got = answer(ctx, "ask_name")
        if got is None:
            return round_one("ask_name", NAME_REQUEST)
        accepted = got.action == "accept" and got.content
        return f"Hello, {got.content.get('name')}!" if accepted else "Hello, stranger."
    result = await ctx.elicit("What is your name?", Name)
    return f"Hello, {result.data.name}!" if result.action == "accept" else "Hello, stranger."


@mcp.tool
async def open_url(ctx: Context) -> str | types.InputRequiredResult:
    """Ask the user to open a URL (elicitation, URL mode)."""
    if modern(ctx):
        got = answer(ctx, "open_url")
        if got is None:
            return round_one("open_url", URL_REQUEST)
    else:
        got = await ctx.session.elicit_url(
            "Please open the page.", "https://example.com/consent", "consent-1", related_request_id=ctx.request_id
        )
    return f"url elicitation: {got.action}"


@mcp.tool
async def sample(ctx: Context) -> str | types.InputRequiredResult:
    """Ask the client's model to say something (sampling)."""
    if modern(ctx):
        got = answer(ctx, "sample")
        if got is None:
            return round_one("sample", SAMPLE_REQUEST)
    else:
        got = await ctx.session.create_message(
            SAMPLE_REQUEST.params.messages, max_tokens=50, related_request_id=ctx.request_id
        )
    content = got.content
    return f"sampled: {content.text if isinstance(content, types.TextContent) else content}"


@mcp.tool
async def roots(ctx: Context) -> str | types.InputRequiredResult:
    """List the client's roots."""
    if modern(ctx):
        got = answer(ctx, "roots")
        if got is None:
            return round_one("roots", types.ListRootsRequest())
    else:
        got = await ctx.session.list_roots()
    return "roots: " + ",".join(str(root.uri) for root in got.roots)


@mcp.resource("testenv://readme", mime_type="text/plain")
def readme() -> str:
    return README


@mcp.resource("testenv://greeting/{name}", mime_type="text/plain")
def greeting(name: str) -> str:
    return f"Greetings, {name}."


@mcp.prompt
def hello(name: str) -> str:
    """Say hello to someone."""
    return f"Say hello to {name}."


@mcp.completion
def complete(ref, argument, context) -> list[str]:
    return [n for n in NAMES if n.lower().startswith(argument.value.lower())]


if __name__ == "__main__":
    _serve.main(
        "fastmcp_server.py",
        stdio=lambda: mcp.run_stdio_async(show_banner=False),
        http_app=lambda stateless, json: mcp.http_app(stateless_http=stateless, json_response=json),
        sse_app=lambda: mcp.http_app(transport="sse"),
    )
