import { describe, expect, it } from 'vitest';
import { render } from '../../../test/render';
import type { AuthView, ServerView } from '../../../utils/types';
import { AuthPanel, type AuthActions } from './AuthPanel';

const never = () => new Promise<never>(() => undefined);
const actions: AuthActions = { load: never, token: never, reauthorize: never, forget: never, cancel: never };
const server = (over: Partial<ServerView> = {}): ServerView => ({
  name: 'notes', entry: { url: 'http://127.0.0.1:9/mcp' }, transport: 'http', target: 'http://127.0.0.1:9/mcp', status: 'connected',
  error: null, latencyMs: 1, era: 'legacy', protocolVersion: '2025-11-25', connection: 1, ...over,
});
const view = (over: Partial<AuthView> = {}): AuthView => ({
  server: 'notes', applies: true, state: 'authorized', pending: null, error: null,
  summary: {
    issuer: 'http://127.0.0.1:9/as', authorizationServerMetadata: 'http://127.0.0.1:9/.well-known/oauth-authorization-server/as',
    protectedResourceMetadata: 'http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp', resource: 'http://127.0.0.1:9/mcp',
    client: { clientId: 'client-1', registration: 'dynamic client registration', tokenEndpointAuthMethod: 'none' },
    scope: 'mcp:read mcp:admin', requestedScope: 'mcp:read mcp:admin', tokenType: 'Bearer', expiresAt: 1, refreshToken: true, profile: 'default',
  },
  secretStore: { kind: 'memory', reason: 'MCPSCOPE_SECRET_STORE=memory' },
  callbackUrl: 'http://127.0.0.1:6274/oauth/callback',
  ...over,
});

describe('AuthPanel', () => {
  it('shows what the flow established, an expired token in red', () => {
    const html = render(<AuthPanel server={server()} view={view()} actions={actions} />);
    expect(html).toContain('data-testid="auth-panel"');
    expect(html).toContain('data-scope="mcp:admin"');
    expect(html.match(/data-testid="auth-granted-scope"/g)).toHaveLength(2);
    expect(html).toContain('dynamic client registration');
    expect(html).toContain('data-expired="true"');
    expect(html).toContain('expired');
    expect(html).toContain('http://127.0.0.1:6274/oauth/callback');
    expect(html).toContain('MCPSCOPE_SECRET_STORE=memory');
    expect(html).not.toContain('data-testid="auth-no-tokens"');
  });
  it('says when there are no tokens, and a secret store error', () => {
    const html = render(<AuthPanel server={server()} view={view({ state: 'none', summary: null, secretStore: { error: 'keyring locked' } })} actions={actions} />);
    expect(html).toContain('data-testid="auth-no-tokens"');
    expect(html).toContain('keyring locked');
  });
  it('describes a stored grant before the server connects, and lets it be forgotten', () => {
    const stored = { issuer: 'http://127.0.0.1:9/as', scope: 'mcp:read', expiresAt: null, expired: false, obtainedAt: 1, refreshToken: true, clientId: 'client-1', profile: 'work' };
    const html = render(
      <AuthPanel server={server({ status: 'disconnected' })} view={view({ state: 'none', summary: null, stored })} actions={actions} />,
    );
    expect(html).toContain('data-testid="auth-stored"');
    expect(html).toContain('profile work; scope mcp:read');
    expect(html).toContain('with a refresh token');
    expect(html).not.toContain('data-testid="auth-no-tokens"');
    const forget = html.match(/<button[^>]*data-testid="auth-forget"[^>]*>/)?.[0] ?? '';
    expect(forget).not.toContain('disabled');
  });
  it('says why OAuth does not apply', () => {
    expect(render(<AuthPanel server={server({ transport: 'stdio', entry: { command: 'x' } })} view={null} actions={actions} />)).toContain('stdio');
    const own = server({ entry: { url: 'http://x/mcp', headers: { Authorization: 'Bearer t' } } });
    const html = render(<AuthPanel server={own} view={view({ applies: false, summary: null, state: 'none' })} actions={actions} />);
    expect(html).toContain('data-applies="false"');
    expect(html).toContain('Authorization header');
  });
});
