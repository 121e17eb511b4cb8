// Package bridge takes one pack to every runtime, as the OpenFunction guide does for one tool
// registry: it loads a built pack's tools (an AgentOS pack's tool descriptors, a PLAIOS pack's
// capabilities, an OpenClaw plugin's or a Pi extension's registered tools) with guard's own
// loader, the sandbox harness, in a node child; serves them over MCP on stdio
// (modelcontextprotocol/go-sdk), running each call in a long-lived node child after preparing
// its arguments exactly as the AgentOS executor does (internal/schema: Ajv draft-07, type
// coercion, defaults, formats); and writes what the other runtimes read: Hermes's
// mcp_servers fragment (or merges it into a config.yaml, leaving the rest of the file as it
// was), OpenClaw's openclaw.plugin.json (as `openclaw plugins build` would), and the
// package.json fields of a Pi package (changing only those bytes).
//
// # The commands' actions
//
// The workflows of `plaios mcp serve` and `plaios export` live here, as helm's pkg/action
// holds its actions, so that the command files only wire flags to them and render what they
// return: Target is the package the command names (opened with the configuration's fixtures
// laid over the role map's, workspace.FixtureOf, as guard reads them); Serve starts a Session;
// HermesExport, OpenClawExport and PiExport load the pack once with guard's inert inputs, build
// what the other runtime reads and write it. Their errors carry the command's exit code
// (internal/exit).
//
// # Containment and the network
//
// Every child runs in internal/sandbox: user, PID and mount namespaces, no capability, a new
// root showing the pack's folder and the node_modules above it and nothing else of the host,
// an environment holding only the variables the pack's declared secrets and configuration name.
// For plaios mcp serve without Offline the pack first loads in a child with no network at all,
// which decides (a pack that reaches for it, or for a unix socket, while loading does not
// start); the child that then serves loads it again with the host's network, refused by the
// hooks until loading is over (sandbox.Spec.Releasable), since tools such as web search exist
// to use it. With Offline the serving child has no network at all.
//
// # Secrets
//
// Secrets come from the environment only, never from a call's arguments: an AgentOS
// getSecret(id) reads the variable `--secret id=ENV_VAR` names, else the manifest's envVar
// for that id, else the id's conventional name (serper.apiKey → SERPER_API_KEY, the rule of
// the AgentOS secret catalogue for all but a handful of its ids); a PLAIOS configuration value
// comes from its field's env variable, then its default. A descriptor whose non-optional secret
// is missing, or an interface whose required configuration is, is left out, as the hosts do.
// Every secret value read is replaced by "[redacted]" in whatever goes back to the client.
//
// # Hand-written parts
//
// openclaw.plugin.json is written as JSON.stringify(v, null, 2) writes it, keys in place, by
// jsonpos's ordered object and writer (no library reproduces JSON.stringify's layout); the
// line diff of --check is small and written here.
package bridge
