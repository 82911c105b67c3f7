// @module-tag unit

import { SQLITE_STORE_KINDS } from "@oah/testing";
import { streamEventsContract } from "./stream-events.contract";

streamEventsContract(SQLITE_STORE_KINDS);
