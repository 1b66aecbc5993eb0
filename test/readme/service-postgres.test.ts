// README "Service" on PostgreSQL: each block run as written.
import { describe } from "vitest";
import { scenario } from "./scenario.js";

describe('README "Service" on PostgreSQL', () => {
  scenario.todo("export RESON_DATABASE_URL=postgres://reson@db/reson");
  scenario.todo("reson worker --metrics-port 9464 &");
});
