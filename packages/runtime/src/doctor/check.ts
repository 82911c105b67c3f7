/**
 * What one check of the doctor found. `needed`: whether the configuration needs it to work;
 * `advised`: not needed, but the host is weaker without it (a warning, not a failure).
 */
export interface CheckResult {
  label: string;
  ok: boolean;
  needed: boolean;
  advised?: boolean;
  /** What was found (a version, a path, the error). */
  detail: string;
  /** What to do, when it is not ok. */
  fix?: string;
}

/**
 * One line per check: ✔ what works, ✘ what does not (and its fix), ⚠ what is advised and missing
 * (and its fix), – what fails but this configuration does not need.
 */
export function formatResult(result: CheckResult): string {
  const mark = result.ok ? "✔" : result.needed ? "✘" : result.advised ? "⚠" : "–";
  const line = `${mark} ${result.label}: ${result.detail}`;
  if (result.ok || !result.fix) return line;
  const unneeded = result.needed || result.advised ? "" : " (not needed by this configuration)";
  return `${line}\n    fix: ${result.fix}${unneeded}`;
}

/** The doctor's verdict: 0 when everything the configuration needs works. */
export const exitCodeOf = (results: readonly CheckResult[]): number =>
  results.some((r) => r.needed && !r.ok) ? 1 : 0;

/** The message of anything thrown, on one line. */
export const messageOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " ");
