export { GroupCommit } from "./group-commit";
export { openRunStore, type StoreLocation, sqliteFileFor } from "./open-store";
export { STREAM_START } from "./ops/stream-events";
export type * from "./run-store";
export { StoreInUseError } from "./sql/client";
export { postgresVersion } from "./sql/server-version";
export { SqlRunStore, type SqlRunStoreOptions } from "./sql-run-store";
export { storageQueryOf } from "./storage-filters";
