/** What one check of the doctor found. `needed`: whether the configuration needs it to work. */
export interface CheckResult {
  label: string;
  ok: boolean;
  needed: boolean;
  /** What was found (a version, a path, the error). */
  detail: string;
  /** What to do, when it is not ok. */
  fix?: string;
}

/** One line per check: ✔ what works, ✘ what does not (and its fix), – what fails but this configuration does not need. */
export function formatResult(result: CheckResult): string {
  const mark = result.ok ? "✔" : result.needed ? "✘" : "–";
  const line = `${mark} ${result.label}: ${result.detail}`;
  if (result.ok || !result.fix) return line;
  return `${line}\n    fix: ${result.fix}${result.needed ? "" : " (not needed by this configuration)"}`;
}

/** The doctor's verdict: 0 when everything the configuration needs works. */
export const exitCodeOf = (results: readonly CheckResult[]): number =>
  results.some((r) => r.needed && !r.ok) ? 1 : 0;

/** The message of anything thrown, on one line. */
export const messageOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " ");
