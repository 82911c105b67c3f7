// @module-tag unit

import { SQLITE_STORE_KINDS } from "@oah/testing";
import { busySessionsContract } from "./busy-sessions.contract";

busySessionsContract(SQLITE_STORE_KINDS);
