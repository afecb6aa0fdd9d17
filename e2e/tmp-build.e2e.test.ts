import { it } from 'vitest';
it('env', async () => { console.log(JSON.stringify(Object.fromEntries(Object.entries(process.env).filter(([k])=>/VITE|MODE|TEST|NODE|DEV|PROD|SSR|BASE/.test(k))))); });
