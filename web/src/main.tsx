import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import 'react-json-view-lite/dist/index.css';
import './app.css';
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { showBidiControls } from './lib/bidi';
import { theme } from './theme';

// Before the first render: server text never reaches the screen with a live bidi override.
showBidiControls(document.body);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <Notifications position="bottom-right" limit={5} />
      <App />
    </MantineProvider>
  </StrictMode>,
);
