import { Alert, Anchor, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { errorHeadline, splitHint } from '../../../utils/format';
import { TroubleshootingLink } from '../TroubleshootingLink/TroubleshootingLink';

export interface InlineErrorProps {
  title?: string;
  message: string;
  code?: string;
  /** The engine's advice on what to try (the error object's `hint`): always shown. */
  hint?: unknown;
  retries?: number;
  onRetry?: () => void;
}

/** A persistent error in context: ~100 characters with "Show more", retry count, retry action,
 *  and the troubleshooting guide of its code. */
export function InlineError({ title = 'Connection Error', message: whole, code, hint: advice, retries, onRetry }: InlineErrorProps) {
  const [open, setOpen] = useState(false);
  const { message, hint } = splitHint(whole, advice);
  const { head, more } = errorHeadline(message);
  return (
    <Alert color="red" variant="light" title={title} data-testid="inline-error" p="xs">
      <Text size="xs" className="mcpscope-pre" data-testid="inline-error-message">
        {open ? message : head}
      </Text>
      {hint && (
        <Text size="xs" fw={500} className="mcpscope-pre" data-testid="inline-error-hint">
          {hint}
        </Text>
      )}
      {retries !== undefined && retries > 0 && (
        <Text size="xs" c="dimmed" data-testid="retry-count">
          Retry attempts: {retries}
        </Text>
      )}
      <Group gap="sm" mt={4}>
        {code && (
          <Text size="xs" c="dimmed">
            code: {code}
          </Text>
        )}
        {more && (
          <Anchor size="xs" component="button" onClick={() => setOpen((o) => !o)} data-testid="show-more">
            {open ? 'Show less' : 'Show more'}
          </Anchor>
        )}
        {onRetry && (
          <Anchor size="xs" component="button" onClick={onRetry} data-testid="retry">
            Retry
          </Anchor>
        )}
        {code && <TroubleshootingLink code={code} />}
      </Group>
    </Alert>
  );
}
