/**
 * Where the audit view is: its filters and the cursors of the pages before the one shown (the
 * audit log pages newest first, each page's `nextCursor` leading to the next).
 */
export interface AuditView {
  actor: string;
  action: string;
  /** The cursor of each page shown so far, the first page's being null. */
  cursors: (string | null)[];
}

export const FIRST_PAGE: AuditView = { actor: "", action: "", cursors: [null] };

export const currentCursor = (view: AuditView): string | null =>
  view.cursors[view.cursors.length - 1] ?? null;

/** New filters start again from the first page. */
export const filtered = (
  view: AuditView,
  filters: Partial<Pick<AuditView, "actor" | "action">>,
): AuditView => ({
  ...view,
  ...filters,
  cursors: [null],
});

export const nextPage = (view: AuditView, cursor: string): AuditView => ({
  ...view,
  cursors: [...view.cursors, cursor],
});

export const previousPage = (view: AuditView): AuditView =>
  view.cursors.length > 1 ? { ...view, cursors: view.cursors.slice(0, -1) } : view;

/** Entries a page of the audit view asks for: one page is all the console holds of the log. */
export const AUDIT_PAGE = 50;

/** What the audit list is asked: only the filters set. */
export function auditQuery(view: AuditView) {
  const cursor = currentCursor(view);
  return {
    ...(view.actor.trim() ? { actor: view.actor.trim() } : {}),
    ...(view.action ? { action: view.action } : {}),
    ...(cursor ? { cursor } : {}),
    limit: AUDIT_PAGE,
  };
}
