export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** The largest of the figures a host has (a percentile is null until it has samples), or null. */
export function largestPresent(values: readonly (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length ? Math.max(...present) : null;
}
