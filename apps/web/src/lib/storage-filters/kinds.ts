import type { StorageOverview } from "@oah/contract";

/** How the filter bar shows a filter. */
export type FilterControl =
  | {
      kind: "list";
      options: readonly string[];
      /** Figures of the overview shown beside the options, when the overview has them. */
      counts?: (overview: StorageOverview) => Partial<Record<string, number>>;
    }
  | { kind: "text"; placeholder: string };

/**
 * One Storage filter: its label and control in the filter bar, and its value's ways to and from
 * the URL parameter and the API input member, both of which carry the filter's name.
 */
export interface StorageFilter<Value, Input> {
  label: string;
  control: FilterControl;
  /** The value of the URL parameter (null when it is absent); what cannot be a value is dropped. */
  parse(raw: string | null): Value;
  /** The URL parameter's value, as it goes in the query string; null when the filter is not set. */
  serialize(value: Value): string | null;
  /** What is wrong with the value, if anything: a filter with a problem is not sent to the API. */
  validate(value: Value): string | undefined;
  /** The API input member; undefined when the filter is not set. */
  toInput(value: Value): Input | undefined;
}

/** A filter of some of a fixed list of values, comma-separated in the URL. */
export function listFilter<T extends string>(filter: {
  label: string;
  options: readonly T[];
  counts?: (overview: StorageOverview) => Partial<Record<T, number>>;
}): StorageFilter<T[], T[]> {
  const { label, options, counts } = filter;
  // In the order of the options, each once: one view, one URL.
  const canonical = (values: readonly string[]): T[] => options.filter((option) => values.includes(option));
  return {
    label,
    control: { kind: "list", options, counts },
    parse: (raw) => canonical((raw ?? "").split(",").map((v) => v.trim())),
    // The values are identifiers without reserved characters: commas stay, so links read like the API's own.
    serialize: (values) => (values.length ? canonical(values).join(",") : null),
    validate: () => undefined,
    toInput: (values) => (values.length ? values : undefined),
  };
}

/** A free-text filter of one value that the API checks against a pattern. */
export function textFilter(filter: {
  label: string;
  placeholder: string;
  pattern: RegExp;
  /** What a value must look like, shown when it does not. */
  expected: string;
}): StorageFilter<string, string> {
  const { label, placeholder, pattern, expected } = filter;
  return {
    label,
    control: { kind: "text", placeholder },
    parse: (raw) => (raw ?? "").trim(),
    serialize: (value) => (value ? encodeURIComponent(value) : null),
    validate: (value) => (value && !pattern.test(value) ? expected : undefined),
    toInput: (value) => value || undefined,
  };
}
