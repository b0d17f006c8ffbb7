import { Badge, Group, Image, Stack, Text } from '@mantine/core';
import { dataUrl, resourceView } from '../../../utils/content';
import { tryParseJson } from '../../../utils/format';
import type { JsonObject } from '../../../utils/types';
import { HexView } from '../../elements/HexView/HexView';
import { JsonView } from '../../elements/JsonView/JsonView';
import { TruncatedText } from '../../elements/TruncatedText/TruncatedText';

export interface ResourceContentProps {
  /** One item of `resources/read` `contents` (or an embedded resource). */
  item: JsonObject;
}

function fileName(uri: string, fallback: string): string {
  const last = uri.split(/[/:]/).filter(Boolean).pop();
  return last && /\.[a-z0-9]+$/i.test(last) ? last : fallback;
}

/** One resource content: JSON, text, image, audio or binary (hex + download). */
export function ResourceContent({ item }: ResourceContentProps) {
  const uri = String(item.uri ?? '');
  const mimeType = typeof item.mimeType === 'string' ? item.mimeType : undefined;
  const text = typeof item.text === 'string' ? item.text : undefined;
  const blob = typeof item.blob === 'string' ? item.blob : undefined;
  const view = resourceView({ mimeType, text, blob });
  return (
    <Stack gap={4} data-testid="resource-content" data-view={view} data-uri={uri}>
      <Group gap="xs">
        <Text size="xs" ff="monospace">
          {uri}
        </Text>
        {mimeType && <Badge color="gray">{mimeType}</Badge>}
      </Group>
      {view === 'json' && <JsonView value={tryParseJson(text)} filename={fileName(uri, 'resource.json')} expandAll />}
      {(view === 'text' || view === 'html') && <TruncatedText text={text ?? ''} filename={fileName(uri, 'resource.txt')} />}
      {view === 'image' && blob && <Image src={dataUrl(mimeType, blob)} alt={uri} className="mcpscope-media" fit="contain" data-testid="resource-image" />}
      {view === 'audio' && blob && <audio controls src={dataUrl(mimeType, blob)} data-testid="resource-audio" />}
      {view === 'binary' && blob && <HexView base64={blob} mimeType={mimeType} filename={fileName(uri, 'resource.bin')} />}
    </Stack>
  );
}
