// The web part: /login's JavaScript as the gateway sends it, and its LCP under Lighthouse's mobile
// throttling (bench/web.ts), against a gateway process serving a production build.
import { randomBytes } from 'node:crypto';
import { localSocketUrl } from '../tools/local-services.js';
import { fmt, freshDatabase, type PartContext, quick } from './common.js';
import { dropRedisPrefix } from './processes.js';
import { benchWeb } from './web.js';

/**
 * /login's LCP over a blank page's, measured in turn (web.ts). The absolute 2.0 s was met at 0.64 s on
 * the project's VM (2026-11-28), and /login's LCP measured 2.4× the blank page's there (2026-12-06,
 * three runs, the median): the same margin is 2.0 / 0.64 × 2.4 = 7.5× (docs/PERFORMANCE.md).
 */
const LCP_TARGET_RATIO = 7.5;

/** 4. Web: /login's bundle and LCP. */
export async function webPart({ admin, services, rows }: PartContext) {
  let web: unknown;
  const webDb = await freshDatabase(admin, 'web');
  const webPrefix = `bench_${randomBytes(3).toString('hex')}`;
  try {
    const w = await benchWeb({
      env: {
        DATABASE_URL: localSocketUrl(webDb.url) ?? webDb.url,
        REDIS_URL: services.redisUrl,
        REDIS_PREFIX: webPrefix,
        LOG_LEVEL: 'error',
        JWT_SECRET: randomBytes(32).toString('hex'),
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        ADMIN_EMAIL: 'admin@bench.test',
        ADMIN_PASSWORD: 'bench-admin-pass',
      },
      runs: quick ? 1 : 3,
    });
    web = w;
    const kb = (n: number) => `${fmt(n / 1024, 1)} KB`;
    const encodings = [...new Set(w.loginScripts.map((s) => s.encoding))].join('/');
    rows.push({
      figure: `web: initial JavaScript for /login as sent (${w.loginScripts.length} files, accept-encoding br, gzip)`,
      value: `${kb(w.loginSent)} ${encodings} · ${kb(w.loginGzip)} gzip-only client · ${kb(w.loginRaw)} raw`,
      target: '≤ 100 KB gzip',
      met: w.loginGzip <= 100 * 1024 && w.loginSent <= 100 * 1024,
    });
    const later = w.browserScripts.filter((s) => !w.loginScripts.some((l) => l.path === s.path));
    rows.push({
      figure: '  then fetched while idle (router chunk, toasts), not needed to sign in',
      value: `${kb(later.reduce((n, s) => n + s.encodedBytes, 0))} in ${later.length} files`,
      target: '',
      met: null,
    });
    const seconds = (runs: number[]) => runs.map((ms) => fmt(ms / 1000, 2)).join(' · ');
    rows.push({
      figure: `web: /login LCP ÷ its floor, a blank page's LCP, Lighthouse mobile throttling via CDP, loaded in turn (medians of ${w.lcpRuns.length} cold loads): /login ${fmt(w.lcpMedian / 1000, 2)} s (${seconds(w.lcpRuns)}; LCP element: ${w.lcpElement}) ÷ blank page ${fmt(w.blankLcpMedian / 1000, 2)} s (${seconds(w.blankLcpRuns)})`,
      value: `${fmt(w.lcpRatio, 2)}×`,
      target: `≤ ${fmt(LCP_TARGET_RATIO, 1)}×`,
      met: w.lcpRatio <= LCP_TARGET_RATIO,
    });
  } finally {
    await dropRedisPrefix(services.redisUrl, webPrefix);
    await webDb.drop();
  }
  return { web };
}
