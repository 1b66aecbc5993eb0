import { describe } from "vitest";
import { faultSuite } from "./fault-suite.js";
import { PROTOCOLS } from "./harness.js";

describe.each(PROTOCOLS.filter((p) => p.wire === "native"))("faults over $name", faultSuite);
