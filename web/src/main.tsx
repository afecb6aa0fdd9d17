import './index.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { checkSession } from './lib/auth';

void checkSession();

const container = document.getElementById('root')!;
const start = () =>
  createRoot(container).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );

// On /login the page holds the prerendered sign-in screen (web/vite.config.ts). React replaces it; let
// the browser first finish reporting its paint (a frame, or 100 ms in a hidden tab), or a slow device
// would record the paint of the replacement, later, as the page's Largest Contentful Paint.
if (container.firstElementChild) {
  let started = false;
  const once = () => {
    if (started) return;
    started = true;
    start();
  };
  requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, 100);
} else start();
