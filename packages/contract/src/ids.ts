import { z } from "zod";

export const sessionIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, { error: "session id must be 1-128 characters of A-Z a-z 0-9 . _ : -" });

// A workspace id names a directory under OAH_WORKSPACE_ROOT: no separators and
// no leading dot, so that "." and ".." can never escape the root.
export const workspaceIdSchema = z.string().regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/, {
  error: "workspace id must be 1-64 characters of A-Z a-z 0-9 . _ - and must not start with a dot",
});

export const runIdSchema = z.string().regex(/^run_[0-9A-HJKMNP-TV-Z]{26}$/, {
  error: "run id must look like run_ followed by 26 ULID characters",
});
