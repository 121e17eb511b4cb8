// The contracts of every PLAIOS component kind, as the PLAIOS guide states them: what
// `import type … from "@plaios/core/domain"` means to tsc when @plaios/core is not installed.

export type JsonSchema = Readonly<Record<string, unknown>>;

export type InterfaceKind =
  | "input" | "output" | "action" | "agent" | "orchestrator" | "discovery"
  | "database" | "memory" | "system1" | "system2" | "env";

// ---- env ----
export interface Environment {
  get(key: string): string | undefined;
  /** Throws when missing. */
  getRequired(key: string): string;
  getOrDefault(key: string, fallback: string): string;
  has(key: string): boolean;
  getAll(): Record<string, string>;
}

// ---- input ----
export type InputChannel = string;
export interface InputAttachment { type: "image"; path: string; mediaType?: string }
export interface InputMessage {
  id: string;
  channel: InputChannel;
  sessionId: string;
  userId?: string;
  text: string;
  attachments?: readonly InputAttachment[];
  createdAt: Date;
  metadata?: Readonly<Record<string, unknown>>;
}
export type InputListener = (message: InputMessage) => void | Promise<void>;
export interface InputInterface {
  readonly channel: InputChannel;
  start(listener: InputListener): Promise<void>;
  stop(): Promise<void>;
}

// ---- output ----
export type OutputChannel = string;
export type OutputContent = string | AsyncIterable<string>;
export interface OutputInterface {
  readonly channel: OutputChannel;
  readonly description?: string;
  readonly instructions?: string;
  write(content: OutputContent): Promise<void>;
}

// ---- action (capability) ----
export interface CapabilityManifest {
  id: string;
  name: string;
  description: string;
  inputSchema: JsonSchema;
  version?: string;
  outputSchema?: JsonSchema;
  permissions?: readonly string[];
  tags?: readonly string[];
  execution?: { timeoutMs?: number; idempotent?: boolean };
  examples?: ReadonlyArray<{ request: string; arguments?: unknown }>;
}
export type CapabilityResult<T = unknown> =
  | { success: true; data: T }
  | { success: false; error: { code: string; message: string; retryable?: boolean; details?: unknown } };
export interface CapabilityExecutionContext {
  runId: string;
  callId: string;
  sessionId?: string;
  userId?: string;
  startedAt: Date;
  signal?: AbortSignal;
  metadata?: Readonly<Record<string, unknown>>;
}
export interface UIComponentProp {
  name: string;
  type: "string" | "string[]" | "number" | "boolean";
  description?: string;
  optional?: boolean;
}
export interface UIComponentSpec {
  name: string;
  description: string;
  props: readonly UIComponentProp[];
}
export interface Capability<TInput = unknown, TOutput = unknown> {
  readonly manifest: CapabilityManifest;
  initialize?(): Promise<void>;
  execute(input: TInput, context: CapabilityExecutionContext): Promise<CapabilityResult<TOutput>>;
  uiComponents(): readonly UIComponentSpec[];
  docs(): string;
}

// ---- memory ----
export type MemoryKind = "working" | "semantic" | "episodic" | "procedural";
export interface MemoryEntry<T = unknown> {
  id: string;
  kind: MemoryKind;
  content: T;
  createdAt: Date;
  addedMemoryDate?: Date;
  factDate?: Date;
  updatedAt?: Date;
  userId?: string;
  sessionId?: string;
  importance?: number;
  confidence?: number;
  metadata?: Readonly<Record<string, unknown>>;
}
export interface MemoryQuery {
  text?: string;
  kinds?: readonly MemoryKind[];
  userId?: string;
  sessionId?: string;
  limit?: number;
  minImportance?: number;
  metadata?: Readonly<Record<string, unknown>>;
  order?: "oldest" | "newest";
}
export interface Memory {
  remember(entry: MemoryEntry): Promise<void>;
  get(id: string): Promise<MemoryEntry | undefined>;
  recall(query?: MemoryQuery): Promise<readonly MemoryEntry[]>;
  forget(id: string): Promise<boolean>;
  clear(query?: MemoryQuery): Promise<number>;
  close?(): Promise<void>;
}

// ---- orchestrator ----
export type MemoryProposal =
  | { operation: "remember"; kind: MemoryKind; content: unknown; reason: string; confidence?: number; factDate?: Date }
  | { operation: "forget"; memoryId: string; reason: string };
export interface OrchestrationDecision {
  capabilityIds: readonly string[];
  outputChannel: OutputChannel;
  additionalOutputs?: readonly { outputChannel: OutputChannel; content: "response" | "text"; text?: string }[];
  memoryProposals?: readonly MemoryProposal[];
  deferMemoryProposal?: boolean;
  bypassModel?: boolean;
  reason?: string;
}
export interface OrchestratorOptions {
  signal?: AbortSignal;
  metadata?: Readonly<Record<string, unknown>>;
}
export interface Orchestrator {
  orchestrate(message: InputMessage, outputs: readonly OutputInterface[], options?: OrchestratorOptions): Promise<OrchestrationDecision>;
  proposeMemory?(message: InputMessage, options?: OrchestratorOptions): Promise<readonly MemoryProposal[]>;
}

// ---- discovery ----
export interface CapabilityDiscoveryQuery {
  text?: string;
  tags?: readonly string[];
  limit?: number;
}
export interface CapabilityDiscovery {
  register(capability: Capability): Promise<void>;
  get(id: string, version?: string): Promise<Capability | undefined>;
  discover(query?: CapabilityDiscoveryQuery): Promise<readonly CapabilityManifest[]>;
}

// ---- models: system1 / system2 ----
export type SystemQuestion =
  | { type: "noul"; instructions?: string; criteria?: { true?: unknown; false?: unknown } | null }
  | { type: "choice"; instructions?: string; criteria: Record<string, unknown> }
  | { type: "score"; instructions?: string; criteria: readonly unknown[] };
export type SystemQuestions = Record<string, SystemQuestion>;
export interface SystemAnswer { type?: string; choice?: string; noul?: number; score?: number }

export interface System1 {
  readonly model: string;
  ask(state: Record<string, unknown>, questions: SystemQuestions, options?: { signal?: AbortSignal }): Promise<Record<string, SystemAnswer>>;
}

export interface AIModelSettings {
  temperature?: number;
  maxTokens?: number;
  [key: string]: unknown;
}
export type AIInput = string | { text: string; images?: readonly { path: string; mediaType?: string }[] };
export interface AIProcessOptions {
  stream?: boolean;
  instructions?: string;
  signal?: AbortSignal;
}
export type AIProcessResult =
  | { type: "text"; text: string }
  | { type: "stream"; stream: AsyncIterable<string> };
export interface AIFunctionDefinition<T = unknown> {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  strict?: boolean;
}
export interface AIFunctionCallResult<T = unknown> {
  name: string;
  arguments: T;
}
export interface AIFunctionCallContext {
  callId: string;
  signal?: AbortSignal;
}
export interface AIExecutableFunctionDefinition<TInput = any, TOutput = unknown> extends AIFunctionDefinition<TInput> {
  execute(args: TInput, context: AIFunctionCallContext): Promise<TOutput>;
}
export interface AIFunctionProcessOptions extends AIProcessOptions {
  maxSteps?: number;
}
export interface AIProvider {
  readonly provider: string;
  readonly model: string;
  readonly settings: Readonly<AIModelSettings>;
  processInput(input: AIInput, options?: AIProcessOptions): Promise<AIProcessResult>;
  functionCall<T>(input: string, definition: AIFunctionDefinition<T>, options?: Omit<AIProcessOptions, "stream">): Promise<AIFunctionCallResult<T>>;
  processWithFunctions(input: AIInput, definitions: readonly AIExecutableFunctionDefinition[], options?: AIFunctionProcessOptions): Promise<AIProcessResult>;
}
export interface System2 extends AIProvider {
  ask(state: Record<string, unknown>, questions: SystemQuestions, options?: { signal?: AbortSignal }): Promise<Record<string, SystemAnswer>>;
}

// ---- agent ----
export interface AgentLoopEvent {
  type: "capability.started" | "capability.completed" | "capability.failed";
  capabilityId: string;
  callId?: string;
  error?: string;
}
export type AgentLoopEventHandler = (event: AgentLoopEvent) => void | Promise<void>;
export interface AgentLoopOptions {
  capabilityIds: readonly string[];
  stream: boolean;
  signal?: AbortSignal;
  onEvent?: AgentLoopEventHandler;
  bypassModel?: boolean;
}
export interface AgentLoop {
  run(message: InputMessage, options: AgentLoopOptions): Promise<AIProcessResult>;
}

// ---- database ----
export type DatabaseKey = string | number;
export type DatabaseRecord = Record<string, unknown>;
export type DatabaseColumnType = "string" | "number" | "boolean" | "datetime" | "json";
export interface DatabaseColumn { type: DatabaseColumnType; required?: boolean }
export interface DatabaseTable {
  primaryKey: string;
  columns: Record<string, DatabaseColumn>;
  indexes?: readonly { columns: readonly string[]; unique?: boolean }[];
}
export interface DatabaseStructure { tables: Record<string, DatabaseTable> }
export interface DatabaseQuery {
  where?: Readonly<Record<string, unknown>>;
  orderBy?: readonly { field: string; direction?: "asc" | "desc" }[];
  limit?: number;
  offset?: number;
}
export interface Database {
  readonly namespace: string;
  init(structure: DatabaseStructure): Promise<void>;
  add<T extends DatabaseRecord>(table: string, value: T): Promise<T>;
  get<T extends DatabaseRecord>(table: string, id: DatabaseKey): Promise<T | undefined>;
  get<T extends DatabaseRecord>(table: string, query?: DatabaseQuery): Promise<readonly T[]>;
  set<T extends DatabaseRecord>(table: string, id: DatabaseKey, value: T): Promise<T>;
  update<T extends DatabaseRecord>(table: string, id: DatabaseKey, patch: Partial<T>): Promise<T | undefined>;
  delete(table: string, target: DatabaseKey | DatabaseQuery): Promise<number>;
}
export interface DatabaseProvider {
  scope(namespace: string): Database;
  close?(): Promise<void>;
}

// ---- configuration ----
export interface ConfigField {
  key: string;
  env?: string;
  type?: "string" | "secret" | "number" | "boolean";
  required?: boolean;
  default?: string | number | boolean;
  description?: string;
}
