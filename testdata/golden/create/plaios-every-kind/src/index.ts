// Every Kind: one class per interface of agent-os.package.yaml. The host finds each by its
// className through this entry and constructs it with `new Class(options)`.
export { EveryKindInput } from "./input.js";
export { EveryKindOutput } from "./output.js";
export { EveryKindCapability } from "./action.js";
export { EveryKindAgentLoop } from "./agent.js";
export { EveryKindOrchestrator } from "./orchestrator.js";
export { EveryKindDiscovery } from "./discovery.js";
export { EveryKindDatabaseProvider } from "./database.js";
export { EveryKindMemory } from "./memory.js";
export { EveryKindSystem1 } from "./system1.js";
export { EveryKindSystem2 } from "./system2.js";
export { EveryKindEnvironment } from "./env.js";
