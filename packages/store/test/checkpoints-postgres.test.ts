// @module-tag system

import { checkpointsContract } from "./checkpoints.contract";

checkpointsContract(["postgres"]);
