// @module-tag system

import { runMessagesContract } from "./run-messages.contract";

runMessagesContract(["postgres"]);
