// One line of `reson doctor`: the area it belongs to, whether the guarantee holds, what was
// found, and what to do when it does not hold.

export type CheckState = "ok" | "warn" | "fail";

export interface Check {
  area: string;
  state: CheckState;
  detail: string;
  fix?: string;
}
