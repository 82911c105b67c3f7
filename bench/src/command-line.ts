import { type ParseArgsConfig, parseArgs } from "node:util";

/** A command line that cannot be run: told with the usage, not as a stack trace. */
export class UsageError extends Error {}

type Values<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>["values"];

/** The values `readCommandLine` reads for these options. */
export type OptionValues<O extends NonNullable<ParseArgsConfig["options"]>> = Values<{ options: O }>;

/**
 * Reads a command's options (strict, no positionals) and makes them what the command
 * runs on, before it starts anything. `--help` prints the usage and exits 0; an
 * unknown option, a missing value or a UsageError from `interpret` prints what is
 * wrong and the usage, and exits 2.
 */
export function readCommandLine<T extends ParseArgsConfig, R>(
  usage: string,
  config: T,
  interpret: (values: Values<T>) => R,
  args: string[] = process.argv.slice(2),
): R {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(usage);
    process.exit(0);
  }
  try {
    return interpret(parseArgs({ ...config, args, strict: true, allowPositionals: false }).values);
  } catch (error) {
    // parseArgs says what is wrong in its message; its codes all start so.
    const fromParseArgs = (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS") ?? false;
    if (!(error instanceof UsageError) && !fromParseArgs) throw error;
    process.stderr.write(`error: ${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
}

export function positiveInteger(option: string, value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`--${option} wants a whole number above 0, not "${value}"`);
  return n;
}

export function positiveNumber(option: string, value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0)
    throw new UsageError(`--${option} wants a number above 0, not "${value}"`);
  return n;
}

/** A comma-separated list of names, each one of `known`. */
export function namesFrom<N extends string>(option: string, value: string, known: readonly N[]): N[] {
  const names = value.split(",").filter((n) => n !== "");
  if (names.length === 0) throw new UsageError(`--${option} names nothing`);
  for (const n of names)
    if (!known.includes(n as N)) throw new UsageError(`--${option}: no "${n}" (one of ${known.join(", ")})`);
  return names as N[];
}
