// The page contract and building blocks of PLAIOS microfrontends, as the PLAIOS guide states
// them: what `import … from "@plaios/microfrontend"` means to tsc when @plaios/microfrontend is
// not installed. Self-contained, so that it reads the same with or without @plaios/core.
import type { ComponentType, ReactElement, ReactNode } from "react";

type InterfaceKind =
  | "input" | "output" | "action" | "agent" | "orchestrator" | "discovery"
  | "database" | "memory" | "system1" | "system2" | "env";

interface ConfigField {
  key: string;
  env?: string;
  type?: "string" | "secret" | "number" | "boolean";
  required?: boolean;
  default?: string | number | boolean;
  description?: string;
}

interface UIComponentSpec {
  name: string;
  description: string;
  props: readonly { name: string; type: "string" | "string[]" | "number" | "boolean"; description?: string; optional?: boolean }[];
}

/** The component a page belongs to: instanceId, kind, id, version, config, fields. */
export interface ComponentInstance {
  instanceId: string;
  kind: InterfaceKind;
  id: string;
  version: string;
  config: Record<string, unknown>;
  fields: readonly ConfigField[];
}

export interface MicrofrontendProps<TData = unknown> {
  component: ComponentInstance;
  /** Whatever the class's microfrontendData() returned. */
  data?: TData;
  onSaveConfig?: (config: Record<string, unknown>) => void | Promise<void>;
}

export type OpenUIComponentModule<TData = unknown, TArgs = Record<string, unknown>> = UIComponentSpec & {
  component: ComponentType<MicrofrontendProps<TData> & { args: TArgs; onOpen?(instanceId: string): void }>;
};

/** Config form and instance summary in one. */
export declare function CapabilityMicrofrontend(props: MicrofrontendProps): ReactElement;
export declare function MicrofrontendFrame(props: { title?: ReactNode; children?: ReactNode; className?: string }): ReactElement;
export declare function ConfigurationEditor(props: MicrofrontendProps): ReactElement;
export declare function InstanceSummary(props: { component: ComponentInstance }): ReactElement;
export declare function Card(props: { className?: string; children?: ReactNode }): ReactElement;
export declare function Badge(props: { className?: string; children?: ReactNode }): ReactElement;
export declare function cn(...classes: Array<string | false | null | undefined>): string;
