import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { REPO_ROOT } from '../harness/target-process.js';
import { BenchFailure } from '../scenarios/scenario.js';

/** The system Chromium (CI installs Debian's); `BENCH_CHROMIUM` points elsewhere. Never a downloaded browser. */
const CHROMIUM = process.env.BENCH_CHROMIUM ?? '/usr/bin/chromium';
const WEB_BUILD = `${REPO_ROOT}apps/web/build/index.html`;

/** Headless Chromium as the e2e tests run it, or a BenchFailure saying what is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new BenchFailure(`No Chromium at ${CHROMIUM}: install it (apt-get install chromium) or set BENCH_CHROMIUM.`);
  if (!existsSync(WEB_BUILD)) throw new BenchFailure(`The web app is not built (${WEB_BUILD} is missing): run \`pnpm build\` first.`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
