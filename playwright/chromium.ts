/** Debian's Chromium: Playwright cannot download browsers on these machines (see STACK.md). */
// biome-ignore lint/suspicious/noUndeclaredEnvVars: read by the test runner, not by a turbo task
export const CHROMIUM_PATH = process.env.OAH_E2E_CHROMIUM ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
