"""How every Python test peer is started: `MODE PORT` on the command line, 127.0.0.1 only.

Modes: `stdio`; `http` (Streamable HTTP, stateful, SSE responses), `http-stateless`,
`http-json` (stateful, JSON responses), `http-stateless-json`; `sse` (the deprecated HTTP+SSE
transport, `/sse` + `/messages/`). PORT 0 picks a free port. Once listening, the peer prints
`mcpscope-testenv: listening on http://127.0.0.1:PORT/mcp (pid N)` (or `/sse`) on stderr, which
is what `crates/mcpscope/tests/peers_support.rs` waits for.

The socket is bound here and handed to uvicorn, so the line names the real port before the
first request can arrive.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable
from typing import Any

import anyio
import uvicorn

# mode -> (stateless, json_response)
HTTP_MODES: dict[str, tuple[bool, bool]] = {
    "http": (False, False),
    "http-stateless": (True, False),
    "http-json": (False, True),
    "http-stateless-json": (True, True),
}


def say(name: str, *args: Any) -> None:
    """A diagnostic line on stderr, unless MCPSCOPE_TS_SERVER_QUIET=1 (the test harness sets it)."""
    if os.environ.get("MCPSCOPE_TS_SERVER_QUIET") != "1":
        print(f"[{name}]", *args, file=sys.stderr, flush=True)


def ack(line: str) -> None:
    """A line the tests look for in the trace (stdio peers' stderr is recorded), always printed."""
    print(line, file=sys.stderr, flush=True)


def usage(name: str) -> None:
    modes = "|".join(["stdio", *HTTP_MODES, "sse"])
    sys.exit(f"usage: {name} {modes} [PORT]")


def main(
    name: str,
    *,
    stdio: Callable[[], Any],
    http_app: Callable[[bool, bool], Any],
    sse_app: Callable[[], Any] | None,
) -> None:
    """Parse `MODE PORT` and serve: `stdio()` is awaited; the app factories return ASGI apps."""
    argv = sys.argv[1:]
    if not argv:
        usage(name)
    mode = argv[0]
    if mode == "stdio":
        anyio.run(stdio)
        return
    if len(argv) < 2:
        usage(name)
    port = int(argv[1])
    if mode in HTTP_MODES:
        app, path = http_app(*HTTP_MODES[mode]), "/mcp"
    elif mode == "sse" and sse_app is not None:
        app, path = sse_app(), "/sse"
    else:
        usage(name)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    sock.set_inheritable(True)
    bound = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    print(f"mcpscope-testenv: listening on http://127.0.0.1:{bound}{path} (pid {os.getpid()})", file=sys.stderr, flush=True)
    anyio.run(lambda: server.serve(sockets=[sock]))
