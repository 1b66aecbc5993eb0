// The learning benchmark's sets, shared by learning.mjs (through the CLI) and learning-replay.mjs
// (in process): for each, the families its project is taught, the families probed and the
// unrelated tasks. Only "tuned" may be tuned on; the held-out sets are written before a change.
import { FAMILIES, UNRELATED } from "./learning-families.mjs";
import { HELDOUT_FAMILIES, HELDOUT_UNRELATED } from "./learning-heldout.mjs";
import { HELDOUT2_FAMILIES, HELDOUT2_UNRELATED } from "./learning-heldout-2.mjs";
import { HELDOUT3_FAMILIES, HELDOUT3_UNRELATED } from "./learning-heldout-3.mjs";
import { HELDOUT4_FAMILIES, HELDOUT4_UNRELATED } from "./learning-heldout-4.mjs";
import { HELDOUT5_FAMILIES, HELDOUT5_UNRELATED } from "./learning-heldout-5.mjs";
import { HELDOUT6_FAMILIES, HELDOUT6_UNRELATED } from "./learning-heldout-6.mjs";

export const LEARNING_SETS = {
  tuned: { taught: FAMILIES, probed: FAMILIES, unrelated: UNRELATED },
  heldout: {
    taught: [...FAMILIES, ...HELDOUT_FAMILIES],
    probed: HELDOUT_FAMILIES,
    unrelated: HELDOUT_UNRELATED,
  },
  heldout2: {
    taught: [...FAMILIES, ...HELDOUT2_FAMILIES],
    probed: HELDOUT2_FAMILIES,
    unrelated: HELDOUT2_UNRELATED,
  },
  heldout3: {
    taught: [...FAMILIES, ...HELDOUT3_FAMILIES],
    probed: HELDOUT3_FAMILIES,
    unrelated: HELDOUT3_UNRELATED,
  },
  heldout4: {
    taught: [...FAMILIES, ...HELDOUT4_FAMILIES],
    probed: HELDOUT4_FAMILIES,
    unrelated: HELDOUT4_UNRELATED,
  },
  heldout5: {
    taught: [...FAMILIES, ...HELDOUT5_FAMILIES],
    probed: HELDOUT5_FAMILIES,
    unrelated: HELDOUT5_UNRELATED,
  },
  heldout6: {
    taught: [...FAMILIES, ...HELDOUT6_FAMILIES],
    probed: HELDOUT6_FAMILIES,
    unrelated: HELDOUT6_UNRELATED,
  },
};
