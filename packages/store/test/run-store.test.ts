// @module-tag unit

import { SQLITE_STORE_KINDS } from "@oah/testing";
import { runStoreContract } from "./run-store.contract";

runStoreContract(SQLITE_STORE_KINDS);
