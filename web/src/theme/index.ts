// The Mantine theme: one file per customised component, gathered here. Components style through
// theme variants and props, never raw colours or inline styles.

import { createTheme, type MantineColorsTuple } from '@mantine/core';
import { Badge } from './Badge';
import { Card } from './Card';
import { Code } from './Code';
import { Modal } from './Modal';
import { Tabs } from './Tabs';
import { Tooltip } from './Tooltip';

const scope: MantineColorsTuple = [
  '#e8f6ff',
  '#d2e9fb',
  '#a4d1f4',
  '#72b7ee',
  '#4aa1e8',
  '#3194e6',
  '#218de6',
  '#0f79cd',
  '#006bb8',
  '#005ca3',
];

export const theme = createTheme({
  primaryColor: 'scope',
  colors: { scope },
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  defaultRadius: 'sm',
  cursorType: 'pointer',
  components: { Badge, Card, Code, Modal, Tabs, Tooltip },
});
