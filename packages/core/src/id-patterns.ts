// Crockford base32, as in ULID: ids sort by creation time, byte-wise and as text.
export const ULID_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A run id: `run_` and a ULID (run-id.ts makes them). */
export const RUN_ID_PATTERN = /^run_[0-9A-HJKMNP-TV-Z]{26}$/;

/** A session id: chosen by the client. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A workspace id names a directory under OAH_WORKSPACE_ROOT: no separators and no
 * leading dot, so that "." and ".." can never escape the root.
 */
export const WORKSPACE_ID_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

/** A host id: what OAH_HOST_ID names, or what a host makes of its role, machine and pid. */
export const HOST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** A rollout id: `rollout_` and a ULID. */
export const ROLLOUT_ID_PATTERN = /^rollout_[0-9A-HJKMNP-TV-Z]{26}$/;

/** A bulk job's id: `bulk_` and a ULID. */
export const BULK_JOB_ID_PATTERN = /^bulk_[0-9A-HJKMNP-TV-Z]{26}$/;
