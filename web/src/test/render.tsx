// Render a component to static HTML inside the Mantine provider (node environment, no DOM).
import { MantineProvider } from '@mantine/core';
import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { theme } from '../theme';

export function render(el: ReactElement): string {
  return renderToStaticMarkup(<MantineProvider theme={theme}>{el}</MantineProvider>);
}
