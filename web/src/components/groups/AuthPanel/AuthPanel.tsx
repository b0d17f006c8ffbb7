// Server Info's Authorization panel: what the OAuth flow established for an HTTP/SSE server
// (authorization server, client, granted scopes, expiry, secret store, callback), a pending login,
// and the actions — copy or decode the access token, re-authorize with extra scopes, forget the
// tokens. The token itself is read once per grant and drawn masked beside Copy; the decoder can
// reveal it.

import { Alert, Anchor, Badge, Button, Code, Divider, Group, Loader, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type ReactNode } from 'react';
import { copyText } from '../../../lib/browser';
import { decodeJwt, expiry, maskToken, notAppliesReason, parseScopeInput, relativeTime, scopeList, type DecodedToken } from '../../../utils/auth';
import { openable } from '../../../utils/openable';
import type { AuthToken, AuthView, ServerView } from '../../../utils/types';
import { CopyValue } from '../../elements/CopyValue/CopyValue';
import { JsonView } from '../../elements/JsonView/JsonView';
import { ConfirmModal } from '../ConfirmModal/ConfirmModal';

/** The API calls of the panel (bound to a server by the caller). */
export interface AuthActions {
  load: (server: string) => Promise<AuthView>;
  token: (server: string) => Promise<AuthToken>;
  reauthorize: (server: string, scopes: string[]) => Promise<unknown>;
  forget: (server: string) => Promise<unknown>;
  cancel: (server: string) => Promise<void>;
}

export interface AuthPanelProps {
  server: ServerView;
  /** The last known view (kept current by `auth` events); null before the first load. */
  view: AuthView | null;
  actions: AuthActions;
}

const STATE_COLOR: Record<string, string> = { none: 'gray', authorizing: 'yellow', authorized: 'green', failed: 'red' };

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function Row({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <Table.Tr data-testid={testId}>
      <Table.Td w={170} c="dimmed" valign="top">
        {label}
      </Table.Td>
      <Table.Td>{children}</Table.Td>
    </Table.Tr>
  );
}

function Url({ value }: { value: string | null | undefined }) {
  if (!value) return <Text size="xs" c="dimmed">—</Text>;
  return (
    <Group gap={4} wrap="nowrap">
      <Code className="mcpscope-grow">{value}</Code>
      <CopyValue value={value} />
    </Group>
  );
}

/** The decoder: the masked token (reveal on demand), then header and claims, or why it cannot. */
function JwtDecoder({ token, decoded }: { token: AuthToken; decoded: DecodedToken }) {
  const [reveal, setReveal] = useState(false);
  const now = Date.now();
  return (
    <Paper withBorder p="xs" data-testid="jwt-decoder" data-kind={decoded.kind}>
      <Stack gap={6}>
        <Text size="xs" fw={600}>
          Access token{token.tokenType ? ` (${token.tokenType})` : ''}
        </Text>
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <Text size="xs" ff="monospace" className="mcpscope-pre mcpscope-grow" data-testid="auth-token" data-revealed={reveal ? 'true' : 'false'}>
            {reveal ? token.accessToken : maskToken(token.accessToken)}
          </Text>
          <Button size="compact-xs" variant="subtle" onClick={() => setReveal((r) => !r)} data-testid="auth-token-reveal">
            {reveal ? 'Hide' : 'Reveal'}
          </Button>
        </Group>
        {decoded.kind === 'opaque' && (
          <Text size="sm" data-testid="jwt-opaque">
            {decoded.note === 'opaque token (not a JWT)' ? 'Opaque token (not a JWT): only the authorization server knows what it means.' : decoded.note}
          </Text>
        )}
        {decoded.kind === 'malformed' && (
          <Alert color="orange" p={6} data-testid="jwt-malformed">
            <Text size="xs">Not decodable: {decoded.error}</Text>
          </Alert>
        )}
        {decoded.kind === 'jwt' && (
          <>
            <Text size="xs" c="orange.8" data-testid="jwt-unverified">
              Decoded only: the signature is not verified here.
            </Text>
            <Text size="xs" fw={600}>
              Header
            </Text>
            <JsonView value={decoded.header} expandAll testId="jwt-header" />
            <Text size="xs" fw={600}>
              Payload
            </Text>
            <JsonView value={decoded.payload} expandAll testId="jwt-payload" />
            {decoded.times.length > 0 && (
              <Table withRowBorders={false} verticalSpacing={0} fz="xs" data-testid="jwt-times">
                <Table.Tbody>
                  {decoded.times.map((t) => (
                    <Table.Tr key={t.claim} data-testid="jwt-time" data-claim={t.claim}>
                      <Table.Td w={70} ff="monospace">
                        {t.claim}
                      </Table.Td>
                      <Table.Td>
                        {new Date(t.iso).toLocaleString()}{' '}
                        <Text span size="xs" c={t.claim === 'exp' && t.seconds * 1000 <= now ? 'red' : 'dimmed'}>
                          ({relativeTime(t.seconds, now)})
                        </Text>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </>
        )}
      </Stack>
    </Paper>
  );
}

export function AuthPanel({ server, view, actions }: AuthPanelProps) {
  const name = server.name;
  const reason = notAppliesReason(server.transport, server.entry);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState<'copy' | 'decode' | 'reauth' | 'forget' | null>(null);
  const [copied, setCopied] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const [decoded, setDecoded] = useState<{ token: AuthToken; decoded: DecodedToken } | null>(null);
  const [extra, setExtra] = useState('');
  const [confirmForget, setConfirmForget] = useState(false);

  // Load (again) when the panel opens; `auth` events keep it current afterwards.
  useEffect(() => {
    if (server.transport === 'stdio') return;
    setLoadError(null);
    actions.load(name).catch((e) => setLoadError(errText(e)));
  }, [name, server.transport, actions]);

  // A new grant (or none) makes a decoded token stale.
  const grantKey = `${view?.state}:${view?.summary?.expiresAt ?? ''}:${view?.summary?.scope ?? ''}`;
  useEffect(() => setDecoded(null), [grantKey]);
  // The access token, masked, beside Copy (003's "Access Token: eyJhbG... [Copy]"): read once
  // per grant; only the mask is drawn (the decoder reveals it on demand).
  const [inline, setInline] = useState<AuthToken | null>(null);
  const hasGrant = !!view?.summary;
  useEffect(() => {
    setInline(null);
    if (!hasGrant) return;
    let live = true;
    actions.token(name).then(
      (t) => live && setInline(t),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [name, grantKey, hasGrant, actions]);

  if (server.transport === 'stdio') {
    return (
      <Stack gap={4} data-testid="auth-panel" data-applies="false">
        <Title order={6}>Authorization</Title>
        <Divider />
        <Text size="sm" c="dimmed" data-testid="auth-not-applies">
          {reason}
        </Text>
      </Stack>
    );
  }

  const run = async (what: NonNullable<typeof busy>, fn: () => Promise<unknown>) => {
    setBusy(what);
    setActionError(null);
    try {
      await fn();
    } catch (e) {
      setActionError(errText(e));
    } finally {
      setBusy(null);
    }
  };

  const copyToken = () =>
    run('copy', async () => {
      const t = await actions.token(name);
      await copyText(t.accessToken);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    });
  const decode = () =>
    decoded
      ? setDecoded(null)
      : run('decode', async () => {
          const t = await actions.token(name);
          setDecoded({ token: t, decoded: decodeJwt(t.accessToken) });
        });
  const reauthorize = () => run('reauth', () => actions.reauthorize(name, parseScopeInput(extra)).then(() => setExtra('')));
  const forget = () => run('forget', () => actions.forget(name));

  const st = view?.state ?? 'none';
  const s = view?.summary ?? null;
  const granted = scopeList(s?.scope);
  const exp = expiry(s?.expiresAt, Date.now());
  const store = view?.secretStore ?? null;
  const stored = view?.stored ?? null;
  const storedExp = stored ? expiry(stored.expiresAt, Date.now()) : null;
  const applies = view ? view.applies : reason === null;

  return (
    <Stack gap={6} data-testid="auth-panel" data-applies={applies ? 'true' : 'false'} data-state={st}>
      <Group justify="space-between">
        <Title order={6}>Authorization</Title>
        {view && applies && (
          <Badge color={STATE_COLOR[st] ?? 'gray'} data-testid="auth-state" data-state={st}>
            {st}
          </Badge>
        )}
      </Group>
      <Divider />
      {!view && !loadError && <Loader size="xs" />}
      {loadError && (
        <Alert color="red" p={6} data-testid="auth-load-error">
          <Text size="xs">Could not read the authorization state: {loadError}</Text>
        </Alert>
      )}
      {view && !applies && (
        <Text size="sm" c="dimmed" data-testid="auth-not-applies">
          {reason ?? 'OAuth does not apply to this server.'}
        </Text>
      )}
      {view && applies && (
        <>
          {view.pending && (
            <Alert color="yellow" p={6} data-testid="auth-pending">
              <Group justify="space-between" gap="xs">
                <Text size="xs">
                  A {view.pending.reason === 'step-up' ? 'step-up ' : ''}login waits for you
                  {view.pending.scopes.length ? ` (scopes ${view.pending.scopes.join(' ')})` : ''}.
                </Text>
                <Group gap={4}>
                  {openable(view.pending.url).ok && (
                    <Anchor href={view.pending.url} target="_blank" rel="noopener noreferrer" size="xs">
                      Open authorization page
                    </Anchor>
                  )}
                  <Button size="compact-xs" variant="subtle" color="red" onClick={() => void actions.cancel(name)}>
                    Cancel
                  </Button>
                </Group>
              </Group>
            </Alert>
          )}
          {view.error && (
            <Alert color="red" p={6} data-testid="auth-error">
              <Text size="xs" className="mcpscope-pre">
                Last authorization failed: {view.error}
              </Text>
            </Alert>
          )}
          {!s && stored && (
            <Text size="sm" data-testid="auth-stored" data-issuer={stored.issuer}>
              Stored tokens from <Text span ff="monospace">{stored.issuer}</Text>
              {` (profile ${stored.profile}; scope ${stored.scope ?? 'not stated'}; `}
              {storedExp ? (storedExp.expired ? `access token ${storedExp.relative}` : `access token expires ${storedExp.relative}`) : 'no expiry stated'}
              {stored.refreshToken ? '; with a refresh token' : '; no refresh token'}
              {'): sent when the server connects.'}
            </Text>
          )}
          {!s && !stored && (
            <Text size="sm" c="dimmed" data-testid="auth-no-tokens">
              {server.status === 'connected'
                ? `No tokens${st === 'none' ? ': the next request the server refuses starts a login.' : '.'}`
                : 'No tokens loaded: stored ones (secret store) are used when the server connects; without any, it logs in.'}
            </Text>
          )}
          <Table withRowBorders={false} verticalSpacing={2} fz="sm">
            <Table.Tbody>
              {s && (
                <>
                  <Row label="Authorization server">
                    <Stack gap={2}>
                      <Text size="sm" ff="monospace" data-testid="auth-issuer">
                        {s.issuer ?? '—'}
                      </Text>
                      <Url value={s.authorizationServerMetadata} />
                    </Stack>
                  </Row>
                  <Row label="Resource metadata">
                    <Url value={s.protectedResourceMetadata} />
                  </Row>
                  <Row label="Resource">
                    <Text size="sm" ff="monospace">
                      {s.resource ?? '—'}
                    </Text>
                  </Row>
                  <Row label="Client" testId="auth-client">
                    {s.client ? (
                      <Stack gap={0}>
                        <Text size="sm" ff="monospace">
                          {s.client.clientId}
                        </Text>
                        <Text size="xs" c="dimmed">
                          {s.client.registration} · token endpoint auth {s.client.tokenEndpointAuthMethod}
                        </Text>
                      </Stack>
                    ) : (
                      '—'
                    )}
                  </Row>
                  <Row label="Granted scopes">
                    {granted.length ? (
                      <Group gap={4}>
                        {granted.map((g) => (
                          <Badge key={g} size="sm" color="green" data-testid="auth-granted-scope" data-scope={g}>
                            {g}
                          </Badge>
                        ))}
                      </Group>
                    ) : (
                      <Text size="xs" c="dimmed">
                        none named by the authorization server
                      </Text>
                    )}
                    {s.requestedScope && s.requestedScope !== s.scope && (
                      <Text size="xs" c="dimmed">
                        asked for: {s.requestedScope}
                      </Text>
                    )}
                  </Row>
                  <Row label="Token" testId="auth-expiry">
                    <Text size="sm">
                      {s.tokenType ?? 'Bearer'}
                      {exp ? (
                        <>
                          {' · expires '}
                          {exp.date.toLocaleString()}{' '}
                          <Text span size="sm" c={exp.expired ? 'red' : 'dimmed'} fw={exp.expired ? 700 : undefined} data-expired={exp.expired ? 'true' : 'false'}>
                            ({exp.relative})
                          </Text>
                        </>
                      ) : (
                        ' · no expiry given'
                      )}
                    </Text>
                  </Row>
                  <Row label="Access token" testId="auth-token-row">
                    <Group gap="xs" wrap="nowrap">
                      <Text size="sm" ff="monospace" className="mcpscope-grow" data-testid="auth-token-inline" style={{ wordBreak: 'break-all' }}>
                        {inline ? maskToken(inline.accessToken) : '…'}
                      </Text>
                      <Button size="compact-xs" variant="default" onClick={() => void copyToken()} loading={busy === 'copy'} data-testid="auth-copy-token" data-copied={copied || undefined}>
                        {copied ? 'Copied' : 'Copy'}
                      </Button>
                      <Button size="compact-xs" variant="default" onClick={() => void decode()} loading={busy === 'decode'} data-testid="auth-decode">
                        {decoded ? 'Hide decoder' : 'Decode JWT'}
                      </Button>
                    </Group>
                  </Row>
                  <Row label="Refresh token">
                    <Text size="sm" data-testid="auth-refresh">
                      {s.refreshToken ? 'yes' : 'no'}
                    </Text>
                  </Row>
                  <Row label="Profile">
                    <Text size="sm">{s.profile ?? 'default'}</Text>
                  </Row>
                </>
              )}
              <Row label="Secret store" testId="auth-secret-store">
                {!store ? (
                  '—'
                ) : 'error' in store ? (
                  <Text size="xs" c="red">
                    {store.error}
                  </Text>
                ) : (
                  <Stack gap={0}>
                    <Text size="sm">
                      {store.kind}
                      {store.location ? (
                        <Text span size="xs" ff="monospace">
                          {' '}
                          · {store.location}
                        </Text>
                      ) : null}
                    </Text>
                    {store.protection && (
                      <Text size="xs" c="dimmed">
                        protected by {store.protection}
                      </Text>
                    )}
                    {store.reason && (
                      <Text size="xs" c="dimmed">
                        {store.reason}
                      </Text>
                    )}
                  </Stack>
                )}
              </Row>
              <Row label="Callback URL">
                <Url value={view.callbackUrl} />
              </Row>
            </Table.Tbody>
          </Table>
          <Group gap="xs">
            <Button size="xs" variant="default" color="red" onClick={() => setConfirmForget(true)} disabled={!s && !stored} loading={busy === 'forget'} data-testid="auth-forget">
              Forget tokens
            </Button>
          </Group>
          {decoded && <JwtDecoder token={decoded.token} decoded={decoded.decoded} />}
          <Group gap="xs" align="flex-end">
            <TextInput
              size="xs"
              className="mcpscope-grow"
              label="Extra scopes (optional)"
              placeholder="mcp:admin files:read"
              value={extra}
              onChange={(e) => setExtra(e.currentTarget.value)}
              data-testid="auth-extra-scopes"
            />
            <Button size="xs" onClick={() => void reauthorize()} loading={busy === 'reauth'} disabled={!!view.pending} data-testid="auth-reauthorize">
              Re-authorize
            </Button>
          </Group>
          {actionError && (
            <Alert color="red" p={6} data-testid="auth-action-error">
              <Text size="xs">{actionError}</Text>
            </Alert>
          )}
        </>
      )}
      <ConfirmModal
        opened={confirmForget}
        title="Forget tokens"
        message={`Forget the tokens of "${name}" (here and in the secret store), revoking them at the authorization server where it offers revocation (RFC 7009)? The client registration stays; the next request logs in again.`}
        confirmLabel="Forget tokens"
        onConfirm={() => void forget()}
        onClose={() => setConfirmForget(false)}
      />
    </Stack>
  );
}
