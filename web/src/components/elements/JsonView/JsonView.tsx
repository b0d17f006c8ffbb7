import { useComputedColorScheme } from '@mantine/core';
import { JsonView as Tree, allExpanded, collapseAllNested, darkStyles, defaultStyles } from 'react-json-view-lite';
import { TruncatedText } from '../TruncatedText/TruncatedText';

export interface JsonViewProps {
  value: unknown;
  /** Above this many characters the tree is replaced by truncated raw text (big payloads). */
  treeLimit?: number;
  expandAll?: boolean;
  filename?: string;
  fullUrl?: string;
  testId?: string;
}

/** Highlighted, foldable JSON; big payloads fall back to truncated text with "Show all" and download. */
export function JsonView({ value, treeLimit = 200_000, expandAll, filename = 'payload.json', fullUrl, testId }: JsonViewProps) {
  const scheme = useComputedColorScheme('light');
  const text = JSON.stringify(value, null, 2) ?? 'undefined';
  if (text.length > treeLimit || value === null || typeof value !== 'object') {
    return (
      <div data-testid={testId}>
        <TruncatedText text={text} filename={filename} fullUrl={fullUrl} />
      </div>
    );
  }
  return (
    <div className="mcpscope-json" data-testid={testId}>
      <Tree
        data={value as object}
        shouldExpandNode={expandAll ? allExpanded : (level) => level < 3 || collapseAllNested(level)}
        style={scheme === 'dark' ? darkStyles : defaultStyles}
        clickToExpandNode
      />
    </div>
  );
}
