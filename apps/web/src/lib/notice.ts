/** A line telling the operator how an action went. */
export type Notice = { kind: "ok" | "error"; text: string } | null;

/** An action the API refused or that failed on the way: what it was, and the API's code and message. */
export function failureNotice(what: string, facts: { errorCode: string | null; message: string }): Notice {
  return { kind: "error", text: `${what}: ${facts.errorCode ?? "error"} — ${facts.message}` };
}

export const noticeClass = (notice: NonNullable<Notice>) =>
  notice.kind === "ok" ? "notice notice-ok" : "notice notice-error";
