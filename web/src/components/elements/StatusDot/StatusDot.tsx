import { Box, ColorSwatch, Group, Text } from '@mantine/core';
import { statusDisplay } from '../../../utils/status';
import type { ServerView } from '../../../utils/types';

export interface StatusDotProps {
  server: Pick<ServerView, 'status' | 'error' | 'latencyMs'>;
  /** Show "(23ms)" after "Connected". */
  withLatency?: boolean;
}

/** Green / yellow pulsing / red with retry count / gray, as 003_* draws the status. */
export function StatusDot({ server, withLatency }: StatusDotProps) {
  const d = statusDisplay(server);
  const latency =
    withLatency && server.status === 'connected' && server.latencyMs !== null && server.latencyMs !== undefined
      ? ` (${server.latencyMs}ms)`
      : '';
  return (
    <Group gap={6} wrap="nowrap" data-testid="status" data-status={server.status}>
      <Box className={d.pulsing ? 'mcpscope-pulse' : undefined} display="inline-flex">
        <ColorSwatch color={`var(--mantine-color-${d.color}-6)`} size={10} withShadow={false} />
      </Box>
      <Text size="sm" c={d.color === 'gray' ? 'dimmed' : undefined} data-testid="status-label">
        {d.label}
        {latency && <span data-testid="latency">{latency}</span>}
      </Text>
    </Group>
  );
}
