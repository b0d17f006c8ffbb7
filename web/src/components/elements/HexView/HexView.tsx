import { Group, Text } from '@mantine/core';
import { base64ToBytes, bytes, hexDump } from '../../../utils/format';
import { DownloadButton } from '../DownloadButton/DownloadButton';

export interface HexViewProps {
  base64: string;
  mimeType?: string;
  filename?: string;
  maxBytes?: number;
}

/** A hex dump of binary content (first 4 KiB) with a download of the whole. */
export function HexView({ base64, mimeType, filename = 'content.bin', maxBytes = 4096 }: HexViewProps) {
  const data = base64ToBytes(base64);
  const lines = hexDump(data, maxBytes);
  return (
    <div data-testid="hex-view">
      <Group gap="xs" mb={4}>
        <Text size="xs" c="dimmed">
          {mimeType ?? 'binary'} · {bytes(data.length)}
          {data.length > maxBytes ? ` · first ${bytes(maxBytes)} shown` : ''}
        </Text>
        <DownloadButton filename={filename} url={`data:${mimeType || 'application/octet-stream'};base64,${base64}`} testId="download-binary" />
      </Group>
      <pre className="mcpscope-pre">{lines.join('\n')}</pre>
    </div>
  );
}
