import { Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { bytes, truncate } from '../../../utils/format';
import { DownloadButton } from '../DownloadButton/DownloadButton';

export interface TruncatedTextProps {
  text: string;
  /** Characters shown before "Show all". */
  limit?: number;
  filename?: string;
  /** The backend URL of the whole payload, when `text` itself is already cut short. */
  fullUrl?: string;
  /** The backend cut this text short. */
  serverTruncated?: boolean;
}

/** Pre-formatted text, truncated in view with "Show all" and a download. */
export function TruncatedText({ text, limit = 20_000, filename = 'payload.txt', fullUrl, serverTruncated }: TruncatedTextProps) {
  const [all, setAll] = useState(false);
  const t = truncate(text, all ? Infinity : limit);
  const cut = t.cut || serverTruncated;
  return (
    <div data-testid="truncated-text" data-truncated={cut ? 'true' : 'false'}>
      {cut && (
        <Group gap="xs" mb={4}>
          <Text size="xs" c="dimmed">
            {serverTruncated ? 'Truncated by the server view' : `Showing ${bytes(t.text.length)} of ${bytes(text.length)}`}
          </Text>
          {t.cut && (
            <Button size="compact-xs" variant="default" onClick={() => setAll(true)} data-testid="show-all">
              Show all
            </Button>
          )}
          <DownloadButton filename={filename} text={fullUrl ? undefined : text} url={fullUrl} testId="download-payload" />
        </Group>
      )}
      <pre className="mcpscope-pre">{t.text}</pre>
    </div>
  );
}
