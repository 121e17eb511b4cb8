import type {
  Database,
  DatabaseKey,
  DatabaseProvider,
  DatabaseQuery,
  DatabaseRecord,
  DatabaseStructure,
} from "@plaios/core/domain";

type Table = { primaryKey: string; rows: Map<DatabaseKey, DatabaseRecord> };

export class PDatabaseDatabaseProvider implements DatabaseProvider {
  private readonly scopes = new Map<string, ScopedDatabase>();

  // The host passes config keys and dependencies; this provider needs none of them.
  constructor(_options: Record<string, unknown> = {}) {}

  scope(namespace: string): Database {
    let database = this.scopes.get(namespace);
    if (!database) {
      database = new ScopedDatabase(namespace);
      this.scopes.set(namespace, database);
    }
    return database;
  }

  async close(): Promise<void> {
    this.scopes.clear();
  }
}

class ScopedDatabase implements Database {
  private readonly tables = new Map<string, Table>();

  constructor(readonly namespace: string) {}

  async init(structure: DatabaseStructure): Promise<void> {
    for (const [name, table] of Object.entries(structure.tables)) {
      if (!this.tables.has(name)) this.tables.set(name, { primaryKey: table.primaryKey, rows: new Map() });
    }
  }

  async add<T extends DatabaseRecord>(table: string, value: T): Promise<T> {
    const t = this.table(table);
    const id = value[t.primaryKey] as DatabaseKey | undefined;
    if (id === undefined) throw new Error(`${table}: the value has no ${t.primaryKey}`);
    if (t.rows.has(id)) throw new Error(`${table}: ${String(id)} already exists`);
    t.rows.set(id, { ...value });
    return value;
  }

  get<T extends DatabaseRecord>(table: string, id: DatabaseKey): Promise<T | undefined>;
  get<T extends DatabaseRecord>(table: string, query?: DatabaseQuery): Promise<readonly T[]>;
  async get<T extends DatabaseRecord>(table: string, target?: DatabaseKey | DatabaseQuery): Promise<T | undefined | readonly T[]> {
    const t = this.table(table);
    if (typeof target === "string" || typeof target === "number") {
      const row = t.rows.get(target);
      return row ? ({ ...row } as T) : undefined;
    }
    return select(t, target).map((row) => ({ ...row }) as T);
  }

  async set<T extends DatabaseRecord>(table: string, id: DatabaseKey, value: T): Promise<T> {
    const t = this.table(table);
    const row = { ...value, [t.primaryKey]: id };
    t.rows.set(id, row);
    return row as T;
  }

  async update<T extends DatabaseRecord>(table: string, id: DatabaseKey, patch: Partial<T>): Promise<T | undefined> {
    const t = this.table(table);
    const row = t.rows.get(id);
    if (!row) return undefined;
    const next = { ...row, ...patch, [t.primaryKey]: id };
    t.rows.set(id, next);
    return next as unknown as T;
  }

  async delete(table: string, target: DatabaseKey | DatabaseQuery): Promise<number> {
    const t = this.table(table);
    if (typeof target === "string" || typeof target === "number") return t.rows.delete(target) ? 1 : 0;
    const rows = select(t, target);
    for (const row of rows) t.rows.delete(row[t.primaryKey] as DatabaseKey);
    return rows.length;
  }

  private table(name: string): Table {
    const table = this.tables.get(name);
    if (!table) throw new Error(`${this.namespace}: table ${name} does not exist; call init first`);
    return table;
  }
}

function select(table: Table, query: DatabaseQuery = {}): DatabaseRecord[] {
  let rows = [...table.rows.values()];
  if (query.where) {
    const where = Object.entries(query.where);
    rows = rows.filter((row) => where.every(([key, value]) => row[key] === value));
  }
  for (const order of [...(query.orderBy ?? [])].reverse()) {
    const sign = order.direction === "desc" ? -1 : 1;
    rows.sort((a, b) => sign * compare(a[order.field], b[order.field]));
  }
  const offset = query.offset ?? 0;
  return rows.slice(offset, query.limit === undefined ? undefined : offset + query.limit);
}

function compare(a: unknown, b: unknown): number {
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  if (x === y) return 0;
  if (x === undefined || x === null) return -1;
  if (y === undefined || y === null) return 1;
  return (x as number | string) < (y as number | string) ? -1 : 1;
}
