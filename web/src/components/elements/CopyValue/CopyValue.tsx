import { Button, CopyButton, Tooltip } from '@mantine/core';

export interface CopyValueProps {
  value: string;
  /** A text button instead of an icon. */
  label?: string;
  testId?: string;
}

/** Copy a value to the clipboard. */
export function CopyValue({ value, label, testId }: CopyValueProps) {
  return (
    <CopyButton value={value} timeout={1500}>
      {({ copied, copy }) =>
        label ? (
          <Button size="xs" variant="default" onClick={copy} data-testid={testId} data-copied={copied || undefined}>
            {copied ? 'Copied' : label}
          </Button>
        ) : (
          <Tooltip label={copied ? 'Copied' : 'Copy to the clipboard'}>
            <Button variant="subtle" size="compact-xs" onClick={copy} aria-label="Copy" data-testid={testId} data-copied={copied || undefined}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          </Tooltip>
        )
      }
    </CopyButton>
  );
}
