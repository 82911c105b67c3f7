// @module-tag system

import { modelUsageContract } from "./model-usage.contract";

modelUsageContract(["postgres"]);
