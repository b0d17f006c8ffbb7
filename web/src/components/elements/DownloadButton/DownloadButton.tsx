import { Button } from '@mantine/core';
import { downloadText, downloadUrl } from '../../../lib/browser';

export interface DownloadButtonProps {
  filename: string;
  /** The text to save, or a URL to fetch (e.g. the backend's whole-body endpoint). */
  text?: string;
  url?: string;
  mime?: string;
  label?: string;
  testId?: string;
}

/** Save a payload to a file. */
export function DownloadButton({ filename, text, url, mime, label = 'Download', testId }: DownloadButtonProps) {
  return (
    <Button
      size="compact-xs"
      variant="default"
      data-testid={testId}
      onClick={() => (url ? downloadUrl(filename, url) : downloadText(filename, text ?? '', mime))}
    >
      {label}
    </Button>
  );
}
