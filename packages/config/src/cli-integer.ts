/** A whole-number command-line option (`--name N`) within [min, max]; undefined when not given. */
export function cliInteger(
  name: string,
  value: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${name} must be ${min}-${max}, got ${value}`);
  return n;
}
