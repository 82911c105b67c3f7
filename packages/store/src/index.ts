export { GroupCommit } from "./group-commit";
export { openRunStore, openSqliteStore, type StoreLocation, sqliteFileFor } from "./open-store";
export { stopsRun } from "./ops/cancel";
export { STREAM_START } from "./ops/stream-events";
export type * from "./roles";
export { StoreInUseError } from "./sql/client";
export { postgresVersion } from "./sql/server-version";
export { storageQueryOf } from "./storage-filters";
