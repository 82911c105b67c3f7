export { MemoryRunStore, type MemoryRunStoreOptions } from "./memory-run-store";
