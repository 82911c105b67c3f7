// @module-tag unit

import { SQLITE_STORE_KINDS } from "@oah/testing";
import { runMessagesContract } from "./run-messages.contract";

runMessagesContract(SQLITE_STORE_KINDS);
