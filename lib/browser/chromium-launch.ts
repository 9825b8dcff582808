// Starting Chromium for the agent (issue 45 §1): the Debian package the end-to-end tests use (the
// path is configurable), headless, its own sandbox on. Chromium refuses its sandbox as root, so an
// app running as root starts it through a small wrapper that hands the profile folder Playwright
// made to an unprivileged user and drops to that user (setpriv, util-linux) before exec — never
// --no-sandbox. playwright-core is loaded with the first browser, not with the app.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';

/** The user Chromium runs as when the app is root: nobody, unless the system names another. */
export const UNPRIVILEGED = { uid: 65534, gid: 65534 };

const WRAPPER = `#!/bin/sh
# Written by AgentCSD (lib/browser/chromium-launch.ts): runs Chromium as an unprivileged user so its
# sandbox stays on. Playwright passes the profile folder it made; that user gets it, nothing else.
set -e
for arg in "$@"; do
  case "$arg" in --user-data-dir=*) chown -R ${UNPRIVILEGED.uid}:${UNPRIVILEGED.gid} -- "\${arg#--user-data-dir=}" ;; esac
done
exec setpriv --reuid=${UNPRIVILEGED.uid} --regid=${UNPRIVILEGED.gid} --clear-groups --inh-caps=-all -- env HOME=/tmp "$CHROMIUM" "$@"
`;

export interface LaunchOptions {
  executablePath: string;
  /** The app's browser folder: the wrapper lives here. */
  browserDir: string;
}

export interface LaunchedBrowser {
  browser: Browser;
  /** Where Chromium writes downloads in flight (the download guard watches it). */
  downloads: string;
}

/** A browser, headless, whose contexts each name their own proxy. */
export async function launchChromium(options: LaunchOptions): Promise<LaunchedBrowser> {
  if (!fs.existsSync(options.executablePath)) throw new Error(`Chromium was not found at ${options.executablePath} (set AGENTCSD_CHROMIUM_PATH, or install it: apt-get install chromium)`);
  const { chromium } = await import('playwright-core');
  // Downloads in flight, where the browser's user can reach them (the app's data folder may be closed to it); moved into the workspace when done.
  const downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-downloads-'));
  fs.mkdirSync(options.browserDir, { recursive: true, mode: 0o700 });
  const root = process.getuid?.() === 0;
  let executablePath = options.executablePath;
  if (root) {
    executablePath = path.join(options.browserDir, 'chromium-unprivileged.sh');
    fs.writeFileSync(executablePath, WRAPPER, { mode: 0o700 });
    fs.chmodSync(executablePath, 0o700);
    // Chromium writes downloads here as that user; the app moves them into the workspace.
    fs.chownSync(downloads, UNPRIVILEGED.uid, UNPRIVILEGED.gid);
  }
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    downloadsPath: downloads,
    // Every context names its own proxy (egress-proxy.ts); this one is never used.
    proxy: { server: 'http://per-context' },
    // Nothing of the app's environment (its keys) reaches the browser.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', CHROMIUM: options.executablePath },
    // No calls home of its own: every request the proxy sees is the page's. WebRTC sends nothing
    // but through the proxy (no UDP of its own, no local addresses): a page cannot reach a host
    // around the egress rules with it (issue 59 §6; test/browser/webrtc-netns.test.ts).
    args: ['--webrtc-ip-handling-policy=disable_non_proxied_udp', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run', '--disable-sync', '--disable-component-update', '--disable-client-side-phishing-detection', '--disable-domain-reliability', '--no-pings', '--disable-features=MediaRouter,OptimizationHints,AutofillServerCommunication,Translate,InterestFeedContentSuggestions'],
  });
  return { browser, downloads };
}
