import { z } from "zod";

/**
 * One environment variable, declared once: its name, its schema (the default applied), where
 * the table of docs/operations.md lists it and what it says there. Where it lands in the
 * configuration is its place in the tree of declarations (see `Declared`).
 */
export interface Variable<T> {
  readonly name: string;
  readonly schema: z.ZodType<T>;
  readonly section: string;
  /** The default as the documentation shows it: "—" for none. */
  readonly shownDefault: string;
  readonly description: string;
}

/** The declarations as they land in the configuration: objects of variables, at any depth. */
export interface Declarations {
  readonly [key: string]: Variable<unknown> | Declarations;
}

/** The values a tree of declarations gives, in its shape. */
export type Declared<T extends Declarations> = {
  -readonly [K in keyof T]: T[K] extends Variable<infer V>
    ? V
    : T[K] extends Declarations
      ? Declared<T[K]>
      : never;
};

const shown = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

/**
 * The declarations of one section of the documentation's table. A variable with a `default`
 * has that value when unset (shown as `shownDefault`, or the value itself); one without may be
 * undefined, and `shownDefault` says what takes its place.
 */
export function section(title: string) {
  function variable<S extends z.ZodType>(
    name: string,
    schema: S,
    doc: { default: z.output<S>; shownDefault?: string; description: string },
  ): Variable<z.output<S>>;
  function variable<S extends z.ZodType>(
    name: string,
    schema: S,
    doc: { shownDefault?: string; description: string },
  ): Variable<z.output<S> | undefined>;
  function variable<S extends z.ZodType>(
    name: string,
    schema: S,
    doc: { default?: z.output<S>; shownDefault?: string; description: string },
  ): Variable<unknown> {
    const hasDefault = "default" in doc;
    return {
      name,
      schema: (hasDefault ? schema.default(doc.default as never) : schema.optional()) as z.ZodType<unknown>,
      section: title,
      shownDefault: doc.shownDefault ?? (hasDefault ? `\`${shown(doc.default)}\`` : "—"),
      description: doc.description,
    };
  }
  return variable;
}

const isVariable = (node: Variable<unknown> | Declarations): node is Variable<unknown> =>
  node.schema instanceof z.ZodType && typeof node.name === "string";

/** Every variable of a tree, in declaration order. */
export function variablesOf(tree: Declarations): Variable<unknown>[] {
  return Object.values(tree).flatMap((node) => (isVariable(node) ? [node] : variablesOf(node)));
}

/** One zod object of every variable of the tree, by name, to parse an environment with. */
export function schemaOf(tree: Declarations): z.ZodObject {
  return z.object(Object.fromEntries(variablesOf(tree).map((v) => [v.name, v.schema])));
}

/** The parsed values, by variable name, put back in the shape of the tree. */
export function shapeOf<T extends Declarations>(tree: T, byName: Record<string, unknown>): Declared<T> {
  return Object.fromEntries(
    Object.entries(tree).map(([key, node]) => [
      key,
      isVariable(node) ? byName[node.name] : shapeOf(node, byName),
    ]),
  ) as Declared<T>;
}

/** Reads the variables of `tree` from `env` (empty values count as unset): their values, or every problem. */
export function readDeclared<T extends Declarations>(
  tree: T,
  env: NodeJS.ProcessEnv,
): { ok: true; values: Declared<T> } | { ok: false; problems: string[] } {
  const names = new Set(variablesOf(tree).map((v) => v.name));
  const present = Object.fromEntries(Object.entries(env).filter(([k, v]) => names.has(k) && v !== ""));
  const parsed = schemaOf(tree).safeParse(present);
  if (!parsed.success)
    return { ok: false, problems: parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`) };
  return { ok: true, values: shapeOf(tree, parsed.data) };
}
