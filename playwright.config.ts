import fs from 'node:fs';
import { defineConfig, devices } from '@playwright/test';

// The real server (production build) on its own port, with its own data and a copy of personas/.
const port = Number(process.env.E2E_PORT ?? 3210);
const baseURL = `http://127.0.0.1:${port}`;
// Both layers talk to a fake OpenAI-compatible server playing a scripted mind (test/fakes/).
export const fakeLlmPort = Number(process.env.E2E_FAKE_LLM_PORT ?? 3211);

// Debian's Chromium by default (Playwright cannot download browsers here); override with
// PLAYWRIGHT_CHROMIUM_PATH, or set it to "" to use Playwright's own browser.
const chromiumPath = process.env.PLAYWRIGHT_CHROMIUM_PATH ?? (fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : '');

// Specs that start servers of their own (kill -9 and SIGTERM rounds, a full disk, HTTPS, sign-in,
// first run): one after another, beside the specs of the shared server — which also run one after
// another (they share its data and scripted mind). Two workers in all; most of the own-server specs'
// time is spent waiting on restarts and held calls.
const ownServers = /\/(access-token|crash|disk-full|first-run|household|https-caddy|one-process|task-crash|web-sign-in)\.spec\.ts$/;

const chromium = {
  ...devices['Desktop Chrome'],
  viewport: { width: 1440, height: 900 },
  launchOptions: {
    ...(chromiumPath && { executablePath: chromiumPath }),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  },
};

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  outputDir: 'test-results/e2e',
  use: {
    baseURL,
    // Mutating requests need our Origin (lib/security/request-guard.ts); a browser sends it by
    // itself, the API request fixture does not.
    extraHTTPHeaders: { origin: baseURL },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    // Points the default models at the fake server before any session is created.
    { name: 'setup', testMatch: /.*\.setup\.ts/ },
    { name: 'chromium', dependencies: ['setup'], testIgnore: ownServers, workers: 1, use: chromium },
    { name: 'own-servers', dependencies: ['setup'], testMatch: ownServers, workers: 1, use: chromium },
  ],
  webServer: [
    {
      command: `tsx test/fakes/run-fake-openai-server.ts ${fakeLlmPort}`,
      url: `http://127.0.0.1:${fakeLlmPort}/v1/models`,
      timeout: 30_000,
      reuseExistingServer: false,
      stdout: 'pipe',
      stderr: 'pipe',
    },
    {
      command: 'node e2e/support/prepare-run.mjs && npm run build && node --enable-source-maps dist/server.mjs',
      url: `${baseURL}/api/health`,
      timeout: 240_000,
      reuseExistingServer: false,
      stdout: 'pipe',
      stderr: 'pipe',
      env: {
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        AGENTCSD_DATA_DIR: 'test-results/e2e-run/data',
        AGENTCSD_PERSONAS_DIR: 'test-results/e2e-run/personas',
        NEXT_TELEMETRY_DISABLED: '1',
      },
    },
  ],
});
