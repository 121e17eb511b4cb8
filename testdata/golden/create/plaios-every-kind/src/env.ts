import type { Environment } from "@plaios/core/domain";

/** Constructor options: the config keys of agent-os.package.yaml, and fixed values. */
export interface EveryKindEnvironmentOptions {
  prefix?: string;
  values?: Record<string, string>;
}

export class EveryKindEnvironment implements Environment {
  private readonly prefix: string;
  private readonly values: Record<string, string>;

  constructor(options: EveryKindEnvironmentOptions = {}) {
    this.prefix = options.prefix ?? "";
    this.values = { ...(options.values ?? {}) };
  }

  get(key: string): string | undefined {
    return Object.hasOwn(this.values, key) ? this.values[key] : process.env[this.prefix + key];
  }

  getRequired(key: string): string {
    const value = this.get(key);
    if (value === undefined || value === "") throw new Error(`Missing required environment value ${this.prefix}${key}`);
    return value;
  }

  getOrDefault(key: string, fallback: string): string {
    return this.get(key) ?? fallback;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  getAll(): Record<string, string> {
    const all: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (value !== undefined && key.startsWith(this.prefix)) all[key.slice(this.prefix.length)] = value;
    }
    return { ...all, ...this.values };
  }
}
