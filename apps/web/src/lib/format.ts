const pad = (n: number, width = 2) => String(n).padStart(width, "0");

function parse(value: string | number | null | undefined): Date | null {
  if (value === null || value === undefined || value === "") return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** `2026-01-31 12:04:05` in the browser's time zone. */
export function fullTime(value: string | number | null | undefined): string {
  const d = parse(value);
  if (!d) return "—";
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Dense form for tables: the time of day today, else the date and time. */
export function shortTime(value: string | number | null | undefined, now = new Date()): string {
  const d = parse(value);
  if (!d) return "—";
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  const sameDay =
    d.getFullYear() === now.getFullYear() && d.getMonth() === now.getMonth() && d.getDate() === now.getDate();
  return sameDay ? time : `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

/** Milliseconds, as 850 ms, 4.2 s, 3m 05s, 2h 10m. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 0) return "0 ms";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86_400)}d ${pad(Math.floor((s % 86_400) / 3600))}h`;
}

/** Time between two instants, or from one to now. */
export function between(
  from: string | number | null | undefined,
  to: string | number | null | undefined,
): number | null {
  const a = parse(from);
  if (!a) return null;
  const b = to === undefined ? new Date() : parse(to);
  if (!b) return null;
  return b.getTime() - a.getTime();
}

/** "12 s ago" style age. */
export function ago(value: string | number | null | undefined, now = Date.now()): string {
  const d = parse(value);
  if (!d) return "—";
  return `${duration(now - d.getTime())} ago`;
}

export function json(value: unknown): string {
  if (value === undefined) return "undefined";
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;
}
