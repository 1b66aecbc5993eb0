import { describe } from "vitest";
import { faultSuite, quotaSuite } from "./fault-suite.js";
import { PROTOCOLS } from "./harness.js";

// The native wire's run is in faults-native.test.ts, so that the two files run in parallel.
describe.each(PROTOCOLS.filter((p) => p.wire !== "native"))("faults over $name", faultSuite);
describe.each(PROTOCOLS.filter((p) => p.wire !== "native"))("quota refusals over $name", quotaSuite);
