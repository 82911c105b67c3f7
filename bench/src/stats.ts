export interface Summary {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

/** Nearest-rank percentile. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Median (the lower middle for an even count, a value that was measured), min and max. */
export function summarize(values: readonly number[]): Summary {
  return {
    median: percentile(values, 50),
    min: Math.min(...values),
    max: Math.max(...values),
    runs: [...values],
  };
}

export const round = (value: number, digits = 1): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};
