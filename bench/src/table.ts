// The bench's output: one markdown table of figures oah has beside a peer (with
// the ratio oah / peer), and one of figures that stand alone.
import type { Summary } from "./stats";

export interface ComparedRow {
  figure: string;
  oah: Summary;
  peer: Summary;
  /** "higher" when a bigger number is better (throughput), "lower" for times and sizes. */
  better: "higher" | "lower";
}

export interface AbsoluteRow {
  figure: string;
  value: Summary | string;
}

/** Three significant digits or so: 1234, 123, 12.3, 1.23, 0.123. */
function num(v: number): string {
  if (!Number.isFinite(v)) return "–";
  const a = Math.abs(v);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return String(Math.round(v * 10 ** digits) / 10 ** digits);
}

/** "median (min–max)", or the median alone when there was one run. */
export function cell(s: Summary): string {
  if (s.runs.length <= 1 || s.min === s.max) return num(s.median);
  return `${num(s.median)} (${num(s.min)}–${num(s.max)})`;
}

export function ratio(oah: Summary, peer: Summary): number {
  return peer.median === 0 ? Number.NaN : oah.median / peer.median;
}

function ratioCell(row: ComparedRow): string {
  if (row.peer.median === 0) return "n/a (peer < 1 ms)";
  const r = ratio(row.oah, row.peer);
  if (!Number.isFinite(r)) return "–";
  const good = row.better === "higher" ? r >= 1 : r <= 1;
  return `${r.toFixed(2)}${good ? "" : " ⚠"}`;
}

export function comparedTable(rows: readonly ComparedRow[]): string[] {
  return [
    "| figure | oah | peer | oah/peer |",
    "|---|---|---|---|",
    ...rows.map((r) => `| ${r.figure} | ${cell(r.oah)} | ${cell(r.peer)} | ${ratioCell(r)} |`),
  ];
}

export function absoluteTable(rows: readonly AbsoluteRow[]): string[] {
  return [
    "| figure | value |",
    "|---|---|",
    ...rows.map((r) => `| ${r.figure} | ${typeof r.value === "string" ? r.value : cell(r.value)} |`),
  ];
}
