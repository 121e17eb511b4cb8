import type { Memory, MemoryEntry, MemoryQuery } from "@plaios/core/domain";

/** Constructor options: the config keys of agent-os.package.yaml. */
export interface EveryKindMemoryOptions {
  maxEntries?: number | string;
}

export class EveryKindMemory implements Memory {
  private readonly entries = new Map<string, MemoryEntry>();
  private readonly maxEntries: number;

  constructor(options: EveryKindMemoryOptions = {}) {
    const maxEntries = Number(options.maxEntries ?? 5000);
    this.maxEntries = Number.isInteger(maxEntries) && maxEntries > 0 ? maxEntries : 5000;
  }

  async remember(entry: MemoryEntry): Promise<void> {
    this.entries.delete(entry.id);
    this.entries.set(entry.id, { ...entry, addedMemoryDate: entry.addedMemoryDate ?? new Date() });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  async get(id: string): Promise<MemoryEntry | undefined> {
    return this.entries.get(id);
  }

  async recall(query: MemoryQuery = {}): Promise<readonly MemoryEntry[]> {
    let found = [...this.entries.values()].filter((entry) => matches(entry, query));
    found.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    if (query.order === "newest") found.reverse();
    if (query.text) {
      const words = wordsOf(query.text);
      const scored = found.map((entry, index) => ({ entry, index, score: overlap(words, wordsOf(contentText(entry))) }));
      found = scored
        .filter((item) => item.score > 0)
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .map((item) => item.entry);
    }
    return query.limit !== undefined ? found.slice(0, query.limit) : found;
  }

  async forget(id: string): Promise<boolean> {
    return this.entries.delete(id);
  }

  async clear(query?: MemoryQuery): Promise<number> {
    const doomed = query ? [...this.entries.values()].filter((entry) => matches(entry, query)) : [...this.entries.values()];
    for (const entry of doomed) this.entries.delete(entry.id);
    return doomed.length;
  }
}

function matches(entry: MemoryEntry, query: MemoryQuery): boolean {
  if (query.kinds && !query.kinds.includes(entry.kind)) return false;
  if (query.userId !== undefined && entry.userId !== query.userId) return false;
  if (query.sessionId !== undefined && entry.sessionId !== query.sessionId) return false;
  if (query.minImportance !== undefined && (entry.importance ?? 0) < query.minImportance) return false;
  for (const [key, value] of Object.entries(query.metadata ?? {})) {
    if (entry.metadata?.[key] !== value) return false;
  }
  return true;
}

function contentText(entry: MemoryEntry): string {
  return typeof entry.content === "string" ? entry.content : JSON.stringify(entry.content);
}

function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 2));
}

function overlap(a: Set<string>, b: Set<string>): number {
  let count = 0;
  for (const word of a) if (b.has(word)) count++;
  return count;
}
