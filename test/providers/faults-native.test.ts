import { describe } from "vitest";
import { faultSuite, quotaSuite } from "./fault-suite.js";
import { PROTOCOLS } from "./harness.js";

describe.each(PROTOCOLS.filter((p) => p.wire === "native"))("faults over $name", faultSuite);
describe.each(PROTOCOLS.filter((p) => p.wire === "native"))("quota refusals over $name", quotaSuite);
