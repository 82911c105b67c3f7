import fc from "fast-check";
import type { z } from "zod";

/** A zod 4 schema's definition, as far as the generator reads it. */
interface Def {
  type: string;
  [key: string]: unknown;
}
interface CheckDef {
  check: string;
  minimum?: number;
  maximum?: number;
  value?: number;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
}

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;
const checksOf = (def: Def): CheckDef[] =>
  ((def.checks as { _zod: { def: CheckDef } }[] | undefined) ?? []).map((c) => c._zod.def);

/** Code units that stores and protocols have been seen to mishandle, mixed into generated text. */
const TROUBLE = [
  "\u0000",
  "\ud800",
  "\udfff",
  "\udc00x",
  "\u2028",
  "\u0085",
  "\uffff",
  "\\",
  "%00",
  "é",
  "😀",
  "\t\n",
];

/** Text of printable characters, with now and then one of TROUBLE. */
export const anyText = (constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        { weight: 4, arbitrary: fc.string({ maxLength: 6 }) },
        { weight: 1, arbitrary: fc.constantFrom(...TROUBLE) },
      ),
      {
        maxLength: 8,
      },
    )
    .map((parts) => parts.join(""))
    .filter(
      (text) => text.length >= (constraints.minLength ?? 0) && text.length <= (constraints.maxLength ?? 64),
    );

/**
 * JSON values a few levels deep whose text (keys too) is anyText: NUL and lone surrogates
 * included, which a schema takes and the API must refuse, not store.
 */
export const anyJson = (): fc.Arbitrary<unknown> =>
  fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      anyText(),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(anyText({ maxLength: 8 }), tie("value"), { maxKeys: 4 }),
    ),
  })).value;

function stringOf(def: Def): fc.Arbitrary<string> {
  const checks = checksOf(def);
  const format =
    (def.format as string | undefined) ?? checks.find((c) => c.check === "string_format")?.format;
  if (format === "datetime") {
    const [min, max] = [new Date("1970-01-01T00:00:00Z"), new Date("2100-01-01T00:00:00Z")];
    return fc.date({ min, max, noInvalidDate: true }).map((d) => d.toISOString());
  }
  const pattern = checks.find((c) => c.check === "string_format" && c.format === "regex")?.pattern;
  const min = checks.find((c) => c.check === "min_length")?.minimum ?? 0;
  const max = checks.find((c) => c.check === "max_length")?.maximum ?? 64;
  // An overwrite is a trim: the length that counts is the trimmed one.
  const trimmed = checks.some((c) => c.check === "overwrite");
  const base = pattern
    ? fc.stringMatching(pattern)
    : anyText({ minLength: min, maxLength: Math.min(max, 64) });
  return base.filter((s) => {
    const counted = trimmed ? s.trim() : s;
    return counted.length >= min && s.length <= max;
  });
}

function numberOf(def: Def): fc.Arbitrary<number> {
  let min = Number.MIN_SAFE_INTEGER;
  let max = Number.MAX_SAFE_INTEGER;
  for (const c of checksOf(def)) {
    if (c.check === "greater_than") min = Math.max(min, c.inclusive ? c.value! : c.value! + 1);
    if (c.check === "less_than") max = Math.min(max, c.inclusive ? c.value! : c.value! - 1);
  }
  return def.format === "safeint" || def.format === "int32"
    ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) })
    : fc.double({ min, max, noNaN: true });
}

/**
 * Values a zod 4 schema accepts, for property tests: the kinds of schema the API's inputs
 * are made of (objects, strings with lengths and patterns, whole numbers with bounds,
 * enums, literals, unions, arrays, records, optional and default fields, preprocessed
 * values, JSON), with text of any code units. No maintained generator of fast-check arbitraries from zod 4 exists;
 * what this does not know it says, rather than generate something wrong.
 */
export function arbitraryOf(schema: z.ZodType): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  switch (def.type) {
    case "object": {
      const shape = def.shape as Record<string, z.ZodType>;
      const required: string[] = [];
      const fields: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, field] of Object.entries(shape)) {
        const kind = defOf(field).type;
        fields[key] = arbitraryOf(field);
        if (kind !== "optional" && kind !== "default") required.push(key);
      }
      return fc.record(fields, { requiredKeys: required as never });
    }
    case "string":
      return stringOf(def);
    case "number":
      return numberOf(def);
    case "boolean":
      return fc.boolean();
    case "enum":
      return fc.constantFrom(...Object.values(def.entries as Record<string, string>));
    case "literal":
      return fc.constantFrom(...(def.values as unknown[]));
    case "union":
      return fc.oneof(...(def.options as z.ZodType[]).map(arbitraryOf));
    case "array": {
      const checks = checksOf(def);
      const minLength = checks.find((c) => c.check === "min_length")?.minimum ?? 0;
      const maxLength = Math.min(checks.find((c) => c.check === "max_length")?.maximum ?? 8, 8);
      return fc.array(arbitraryOf(def.element as z.ZodType), { minLength, maxLength });
    }
    case "record":
      return fc.dictionary(
        arbitraryOf(def.keyType as z.ZodType) as fc.Arbitrary<string>,
        arbitraryOf(def.valueType as z.ZodType),
        {
          maxKeys: 4,
        },
      );
    case "optional":
    case "default":
    case "nullable":
      return arbitraryOf(def.innerType as z.ZodType);
    case "pipe":
      // A preprocess is a pipe from a transform to the schema that judges the result.
      return arbitraryOf((defOf(def.in).type === "transform" ? def.out : def.in) as z.ZodType);
    case "unknown":
      return anyJson();
    default:
      throw new Error(`arbitraryOf: no generator for a zod ${def.type} schema`);
  }
}
