"""A test peer on the official Python SDK's high-level server, `MCPServer` (`mcp==2.3.0`).

The SDK serves both eras on every transport by itself: the client's first request decides
(`initialize` → 2025-11-25; a request with the 2026-07-28 `_meta` envelope, or over HTTP an
`Mcp-Protocol-Version` header that is not a handshake version → 2026-07-28). Elicitation,
sampling and roots are asked through `Resolve(...)` resolvers, which the SDK turns into
server→client requests in the legacy era and `input_required` rounds in the modern one.

Offers:
  tools      echo(text); add(a, b) with an outputSchema and structuredContent {"sum"};
             slow(seconds) — progress 1/2 and an info log, then sleeps (cancellation; prints
             `cancelled <id>` on stderr when cancelled); ask_name — elicitation (form) of
             {name, default "World"}; open_url — URL-mode elicitation (legacy only: the SDK has
             no URL resolver); sample — sampling/createMessage; roots — roots/list
  resources  testenv://readme; template testenv://greeting/{name}
  prompts    hello(name)
  completion prompt hello / template greeting, argument name, from Ada, Alan, Bo
  logging    logging/setLevel (legacy; the modern era's level rides `_meta`)

Run through testenv/peers/python-sdk-server.sh MODE PORT (see _serve.py for the modes).
"""

from __future__ import annotations

from typing import Annotated

import anyio
from mcp_types import (
    Completion,
    EmptyResult,
    ListRootsResult,
    CreateMessageResult,
    SamplingMessage,
    SetLevelRequestParams,
    TextContent,
)
from pydantic import BaseModel

from mcp.server.mcpserver import (
    Context,
    Elicit,
    ElicitationResult,
    ListRoots,
    MCPServer,
    Resolve,
    Sample,
)

import _serve

NAMES = ["Ada", "Alan", "Bo"]
README = "Hello from the Python SDK MCPServer test peer."

server = MCPServer("mcpscope-python-sdk-peer", version="2.3.0-peer", log_level="WARNING")


class Sum(BaseModel):
    sum: int


class Name(BaseModel):
    name: str = "World"


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool()
def add(a: int, b: int) -> Sum:
    """Add two integers; the sum is also structured content."""
    return Sum(sum=a + b)


@server.tool()
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


def ask_for_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@server.tool()
def ask_name(answer: Annotated[ElicitationResult[Name], Resolve(ask_for_name)]) -> str:
    """Ask the user's name (elicitation, form mode)."""
    if answer.action == "accept":
        return f"Hello, {answer.data.name}!"
    return "Hello, stranger."


@server.tool()
async def open_url(ctx: Context) -> str:
    """Ask the user to open a URL (elicitation, URL mode; legacy era only)."""
    result = await ctx.elicit_url("Please open the page.", "https://example.com/consent", "consent-1")
    return f"url elicitation: {result.action}"


def ask_for_completion() -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text="Say something."))],
        max_tokens=50,
    )


@server.tool()
def sample(reply: Annotated[CreateMessageResult, Resolve(ask_for_completion)]) -> str:
    """Ask the client's model to say something (sampling)."""
    content = reply.content
    return f"sampled: {content.text if isinstance(content, TextContent) else content}"


def ask_for_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def roots(found: Annotated[ListRootsResult, Resolve(ask_for_roots)]) -> str:
    """List the client's roots."""
    return "roots: " + ",".join(str(root.uri) for root in found.roots)


@server.resource("testenv://readme", mime_type="text/plain")
def readme() -> str:
    return README


@server.resource("testenv://greeting/{name}", mime_type="text/plain")
def greeting(name: str) -> str:
    return f"Greetings, {name}."


@server.prompt()
def hello(name: str) -> str:
    """Say hello to someone."""
    return f"Say hello to {name}."


@server.completion()
async def complete(ref, argument, context) -> Completion:
    values = [n for n in NAMES if n.lower().startswith(argument.value.lower())]
    return Completion(values=values, total=len(values), has_more=False)


async def set_level(ctx, params: SetLevelRequestParams) -> EmptyResult:
    # MCPServer registers no logging/setLevel of its own; the low-level seam it uses for
    # completion takes one. Accept the level (tools log at info).
    _serve.say("sdk-server", "log level", params.level)
    return EmptyResult()


server._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)

if __name__ == "__main__":
    _serve.main(
        "sdk_server.py",
        stdio=server.run_stdio_async,
        http_app=lambda stateless, json: server.streamable_http_app(stateless_http=stateless, json_response=json),
        sse_app=server.sse_app,
    )
