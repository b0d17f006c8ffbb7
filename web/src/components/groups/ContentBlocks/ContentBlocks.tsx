import { Anchor, Badge, Card, Group, Image, Stack, Text } from '@mantine/core';
import { contentKind, dataUrl } from '../../../utils/content';
import { tryParseJson } from '../../../utils/format';
import type { Json, JsonObject } from '../../../utils/types';
import { JsonView } from '../../elements/JsonView/JsonView';
import { TruncatedText } from '../../elements/TruncatedText/TruncatedText';
import { ResourceContent } from '../ResourceContent/ResourceContent';

export interface ContentBlocksProps {
  blocks: Json;
  /** A resource link was clicked. */
  onOpenResource?: (uri: string) => void;
}

/** Content blocks: text (JSON highlighted), images, audio, resource links, embedded resources. */
export function ContentBlocks({ blocks, onOpenResource }: ContentBlocksProps) {
  const list = Array.isArray(blocks) ? blocks : blocks ? [blocks] : [];
  return (
    <Stack gap="xs">
      {list.map((b, i) => (
        <ContentBlock key={i} block={b} onOpenResource={onOpenResource} />
      ))}
    </Stack>
  );
}

function ContentBlock({ block, onOpenResource }: { block: Json; onOpenResource?: (uri: string) => void }) {
  const kind = contentKind(block);
  const o = (block ?? {}) as JsonObject;
  const mime = typeof o.mimeType === 'string' ? o.mimeType : undefined;
  switch (kind) {
    case 'text': {
      const text = String(o.text ?? '');
      const json = /^\s*[[{]/.test(text) ? tryParseJson(text) : undefined;
      return (
        <div data-testid="content-text">
          {json !== undefined ? <JsonView value={json} /> : <TruncatedText text={text} filename="result.txt" />}
        </div>
      );
    }
    case 'image':
      return (
        <Stack gap={2} data-testid="content-image">
          <Image src={dataUrl(mime, String(o.data ?? ''))} alt="image content" className="mcpscope-media" fit="contain" />
          <Text size="xs" c="dimmed">
            {mime}
          </Text>
        </Stack>
      );
    case 'audio':
      return (
        <Stack gap={2} data-testid="content-audio">
          <audio controls src={dataUrl(mime, String(o.data ?? ''))} />
          <Text size="xs" c="dimmed">
            {mime}
          </Text>
        </Stack>
      );
    case 'resource_link': {
      const uri = String(o.uri ?? '');
      return (
        <Group gap="xs" data-testid="content-resource-link">
          <Badge color="violet">link</Badge>
          <Anchor size="sm" component="button" onClick={() => onOpenResource?.(uri)}>
            {String(o.name ?? uri)}
          </Anchor>
          <Text size="xs" c="dimmed" ff="monospace">
            {uri}
          </Text>
          {mime && <Badge color="gray">{mime}</Badge>}
        </Group>
      );
    }
    case 'resource':
      return (
        <Card data-testid="content-resource" p="xs">
          <Badge color="violet" mb={4}>
            embedded resource
          </Badge>
          <ResourceContent item={(o.resource ?? {}) as JsonObject} />
        </Card>
      );
    default:
      return <JsonView value={block} />;
  }
}
