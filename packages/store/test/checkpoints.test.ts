// @module-tag unit

import { SQLITE_STORE_KINDS } from "@oah/testing";
import { checkpointsContract } from "./checkpoints.contract";

checkpointsContract(SQLITE_STORE_KINDS);
