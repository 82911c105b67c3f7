/** How often live data is refetched. */
export const REFRESH_MS = 3_000;
