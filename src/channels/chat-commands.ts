// The commands a chat message may be instead of a task: /new (the chat's next message starts a
// new session) and /stop (the chat's running run is cancelled). Telegram appends the bot's name
// in groups ("/new@my_bot"); anything else is a task like any other text.

export type ChatCommand = "new" | "stop";

export function chatCommand(text: string): ChatCommand | undefined {
  const match = /^\/(new|stop)(?:@[A-Za-z0-9_]+)?\s*$/.exec(text.trim());
  return match ? (match[1] as ChatCommand) : undefined;
}
