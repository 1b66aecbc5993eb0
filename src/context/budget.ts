// The token budget of a model call: what the request is estimated to cost, from a fast
// heuristic calibrated by the usage the provider reports. Estimates are cached per message
// object (old messages are the same objects every call), so a step costs O(new messages).
import { estimateMessageTokens, estimateTokens, TokenCalibrator } from "../core/tokens.js";
import type { ChatRequest, Message, ToolSpec } from "../providers/index.js";

export const DEFAULT_BUDGET_RATIO = 0.85;

export interface RequestEstimatorOptions {
  /** How the tools' schemas and the system prompt are estimated (default estimateTokens). */
  estimate?: (text: string) => number;
}

export class RequestEstimator {
  private readonly perMessage = new WeakMap<Message, number>();
  private readonly perTools = new WeakMap<readonly ToolSpec[], number>();
  private readonly perSystem = new Map<string, number>();
  private readonly estimateText: (text: string) => number;
  readonly calibrator = new TokenCalibrator();

  constructor(options: RequestEstimatorOptions = {}) {
    this.estimateText = options.estimate ?? estimateTokens;
  }

  /** Uncalibrated estimate of one message. */
  messageTokens(message: Message): number {
    let tokens = this.perMessage.get(message);
    if (tokens === undefined) {
      tokens = estimateMessageTokens(message);
      this.perMessage.set(message, tokens);
    }
    return tokens;
  }

  private toolsTokens(tools: readonly ToolSpec[]): number {
    let tokens = this.perTools.get(tools);
    if (tokens === undefined) {
      tokens = this.estimateText(JSON.stringify(tools));
      this.perTools.set(tools, tokens);
    }
    return tokens;
  }

  private systemTokens(text: string): number {
    let tokens = this.perSystem.get(text);
    if (tokens === undefined) {
      if (this.perSystem.size > 8) this.perSystem.clear();
      tokens = this.estimateText(text);
      this.perSystem.set(text, tokens);
    }
    return tokens;
  }

  /** Uncalibrated estimate of a whole request. */
  raw(request: ChatRequest): number {
    let total = this.systemTokens(request.systemPrompt) + this.toolsTokens(request.tools);
    for (const message of request.messages) total += this.messageTokens(message);
    return total;
  }

  /** Calibrated estimate of a whole request, in the provider's tokens. */
  estimate(request: ChatRequest): number {
    return Math.ceil(this.raw(request) * this.calibrator.ratio);
  }

  /** Feeds back what the provider counted for a request we estimated at `rawEstimate`. */
  observe(rawEstimate: number, reportedInputTokens: number): void {
    this.calibrator.observe(rawEstimate, reportedInputTokens);
  }
}
