// The editor protocol: `reson acp` serves the Agent Client Protocol on a pair of streams, each
// editor session a reson session whose runs start through the runner like every host's.
export { type AcpOptions, serveAcp } from "./acp-host.js";
