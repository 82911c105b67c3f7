/** The keyset cursors of the pages walked so far; the first page has none. */
export type Cursors = readonly (string | undefined)[];

export const FIRST_PAGE: Cursors = [undefined];

export const previousPage = (cursors: Cursors): Cursors =>
  cursors.length > 1 ? cursors.slice(0, -1) : cursors;

/** Where the shown page is, as the panel's head says it. */
export function pageText(page: number, limit: number, rows: number): string {
  if (rows === 0) return `page ${page}`;
  const first = (page - 1) * limit + 1;
  return `page ${page} · rows ${first}–${first + rows - 1}`;
}
