"""An MCP server protected by the official Python SDK's own OAuth authorization server.

    python oauth_server.py MODE PORT      # http://127.0.0.1:PORT/mcp ; PORT 0 = pick one

The SDK (`mcp==2.3.0`) builds every OAuth route itself - RFC 8414 metadata, RFC 9728 protected
resource metadata, RFC 7591 registration, /authorize, /token, RFC 7009 /revoke - and checks the
bearer token on /mcp; this file only supplies the `OAuthAuthorizationServerProvider` the SDK
asks for (in memory) and the tools. Its /authorize sends the browser to this server's own
consent page, `/consent?txn=...`, which approves on a plain GET and redirects back to the
client's redirect URI with the code - so a test can approve "as a browser would" by fetching
the authorization URL and following redirects.

MODE:
  http            as above
  rotated-secret  the server keeps a different client secret than the one registration handed
                  out (as after an administrator rotated it): every token request is refused
                  `401 invalid_client` by the SDK's own client authentication, whatever the
                  method - the case a client must end instead of registering again and again.

Tools: `echo` (text) and `whoami` (the client id and scopes of the token the call carried).
Once listening it prints `mcpscope-testenv: listening on http://127.0.0.1:PORT/mcp (pid N)` on
stderr.
"""

import asyncio
import os
import secrets
import socket
import sys
import time
import warnings

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response

SCOPES = ["mcp:read", "mcp:write"]
ACCESS_TTL = 3600


class InMemoryProvider:
    """The provider the SDK calls: clients, codes and tokens in dicts."""

    def __init__(self, base: str, rotated_secret: bool):
        self.base = base
        self.rotated_secret = rotated_secret
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.pending: dict[str, tuple[str, AuthorizationParams]] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        kept = client_info
        if self.rotated_secret and client_info.client_secret:
            # The answer to the registration carries the original secret; the server checks
            # token requests against another one.
            kept = client_info.model_copy(update={"client_secret": secrets.token_hex(32)})
        self.clients[str(client_info.client_id)] = kept

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        txn = secrets.token_urlsafe(16)
        self.pending[txn] = (str(client.client_id), params)
        return f"{self.base}/consent?txn={txn}"

    def approve(self, txn: str) -> str | None:
        """The consent page's approval: a code, and where the browser goes with it."""
        found = self.pending.pop(txn, None)
        if found is None:
            return None
        client_id, params = found
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or SCOPES,
            expires_at=time.time() + 300,
            client_id=client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code: str):
        code = self.codes.get(authorization_code)
        return code if code and code.client_id == client.client_id else None

    async def exchange_authorization_code(self, client, authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(str(client.client_id), authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token: str):
        r = self.refresh.get(refresh_token)
        return r if r and r.client_id == client.client_id else None

    async def exchange_refresh_token(self, client, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        return self._issue(str(client.client_id), scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        a = self.access.get(token)
        if a and a.expires_at and a.expires_at < time.time():
            return None
        return a

    async def revoke_token(self, token) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    async def exchange_identity_assertion(self, client, params):
        from mcp.server.auth.provider import TokenError

        raise TokenError(error="unsupported_grant_type", error_description="not supported here")

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access = "py-access-" + secrets.token_hex(16)
        refresh = "py-refresh-" + secrets.token_hex(16)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + ACCESS_TTL,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=ACCESS_TTL,
            refresh_token=refresh,
            scope=" ".join(scopes),
        )


def build(base: str, rotated_secret: bool):
    provider = InMemoryProvider(base, rotated_secret)
    server = MCPServer(
        name="mcpscope-testenv-python-oauth",
        version="2.3.0",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            # The SDK refuses a token issued for another resource (RFC 8707).
            validate_token_resource=True,
            client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=SCOPES),
            revocation_options=RevocationOptions(enabled=True),
            required_scopes=["mcp:read"],
        ),
    )

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool()
    def whoami() -> str:
        """The client and scopes of the access token this call carried."""
        t = get_access_token()
        return f"client {t.client_id} scopes {' '.join(t.scopes)}" if t else "anonymous"

    @server.custom_route("/consent", methods=["GET"])
    async def consent(request: Request) -> Response:
        back = provider.approve(request.query_params.get("txn", ""))
        if back is None:
            return PlainTextResponse("no such authorization request", status_code=400)
        return RedirectResponse(back, status_code=302)

    return server.streamable_http_app()


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "http"
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if mode not in ("http", "rotated-secret"):
        sys.exit(f"usage: oauth_server.py http|rotated-secret PORT (not {mode!r})")
    # The issuer URL must name the port, so the socket is bound before the app is built.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = build(base, mode == "rotated-secret")
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"mcpscope-testenv: listening on {base}/mcp (pid {os.getpid()})", file=sys.stderr, flush=True)
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
