// The gateway mode's page (`mcpscope gateway`, docs/gateway.md): mounts the Mantine provider and
// GatewayPage. Like the web UI's main.tsx, bidi controls in server text are shown, never obeyed.
import '@mantine/core/styles.css';
import 'react-json-view-lite/dist/index.css';
import '../app.css';
import { MantineProvider } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { showBidiControls } from '../lib/bidi';
import { theme } from '../theme';
import { GatewayPage } from './GatewayPage';

// Before the first render: server text never reaches the screen with a live bidi override.
showBidiControls(document.body);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <GatewayPage />
    </MantineProvider>
  </StrictMode>,
);
