// @module-tag system

import { busySessionsContract } from "./busy-sessions.contract";

busySessionsContract(["postgres"]);
