/** The session inspector's page of one session. */
export const inspectorHref = (sessionId: string) => `/sessions/${encodeURIComponent(sessionId)}`;
