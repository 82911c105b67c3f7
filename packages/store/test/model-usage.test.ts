// @module-tag unit

import { SQLITE_STORE_KINDS } from "@oah/testing";
import { modelUsageContract } from "./model-usage.contract";

modelUsageContract(SQLITE_STORE_KINDS);
