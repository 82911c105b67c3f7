import type { StorageRunFilters } from "@oah/contract";
import type { StorageFilter } from "./kinds";
import { STORAGE_FILTERS } from "./table";

export type FilterName = keyof typeof STORAGE_FILTERS;

type ValueOf<F> = F extends StorageFilter<infer Value, unknown> ? Value : never;
/** The values of every filter, by name. */
export type FilterValues = { [Name in FilterName]: ValueOf<(typeof STORAGE_FILTERS)[Name]> };

/** The view's filters and page size, kept in the URL under the API's own parameter names. */
export type RunFilters = FilterValues & { limit: number };

// The table seen through its names, so that a filter's value and its entry are typed together;
// that every filter names a member of the API input is checked here too.
const FILTERS: { [Name in FilterName]: StorageFilter<FilterValues[Name], StorageRunFilters[Name]> } =
  STORAGE_FILTERS;
const NAMES = Object.keys(FILTERS) as FilterName[];

export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_LIMIT = 50;

function parseValues(params: URLSearchParams): FilterValues {
  const parse = <Name extends FilterName>(name: Name) => FILTERS[name].parse(params.get(name));
  return Object.fromEntries(NAMES.map((name) => [name, parse(name)])) as FilterValues;
}

export function parseFilters(params: URLSearchParams): RunFilters {
  const limit = Number(params.get("limit"));
  return {
    ...parseValues(params),
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_LIMIT,
  };
}

export const EMPTY_FILTERS: RunFilters = parseFilters(new URLSearchParams());

const serialize = <Name extends FilterName>(name: Name, filters: FilterValues) =>
  FILTERS[name].serialize(filters[name]);

/** The query string of a view: its set filters in the table's order, then the page size unless it is the default. */
export function filtersToQuery(filters: RunFilters): string {
  const parts: string[] = [];
  for (const name of NAMES) {
    const value = serialize(name, filters);
    if (value !== null) parts.push(`${name}=${value}`);
  }
  if (filters.limit !== DEFAULT_LIMIT) parts.push(`limit=${filters.limit}`);
  return parts.length ? `?${parts.join("&")}` : "";
}

/** Whether any filter is set (the page size is not a filter). */
export function hasFilters(filters: FilterValues): boolean {
  return NAMES.some((name) => serialize(name, filters) !== null);
}

/** Whether exactly the filters of `wanted` are set, whatever the page size. */
export function isOnly(filters: FilterValues, wanted: Partial<FilterValues>): boolean {
  const expected = { ...EMPTY_FILTERS, ...wanted };
  return NAMES.every((name) => serialize(name, filters) === serialize(name, expected));
}

/** The problems of the filters that have one, by name. */
export function filterProblems(filters: FilterValues): Partial<Record<FilterName, string>> {
  const validate = <Name extends FilterName>(name: Name) => FILTERS[name].validate(filters[name]);
  return Object.fromEntries(
    NAMES.flatMap((name) => {
      const problem = validate(name);
      return problem === undefined ? [] : [[name, problem]];
    }),
  );
}

/** The admin.runs input of a view (without paging): the set filters without a problem. */
export function filtersToInput(filters: FilterValues): StorageRunFilters {
  const input = <Name extends FilterName>(name: Name) =>
    FILTERS[name].validate(filters[name]) === undefined ? FILTERS[name].toInput(filters[name]) : undefined;
  return Object.fromEntries(
    NAMES.flatMap((name) => {
      const value = input(name);
      return value === undefined ? [] : [[name, value]];
    }),
  );
}
