import { useState, type FormEvent } from "react";
import type { MicrofrontendProps } from "@plaios/microfrontend";

/**
 * The every-kind.database page: what this component is, and a form for its configuration. Whatever
 * EveryKindDatabaseProvider.microfrontendData() returns arrives as `data`.
 */
export default function EveryKindDatabaseProviderPage({ component, data, onSaveConfig }: MicrofrontendProps) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(component.fields.map((field) => [field.key, field.type === "secret" ? "" : String(component.config[field.key] ?? field.default ?? "")])),
  );
  const [status, setStatus] = useState("");

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!onSaveConfig) return;
    const config: Record<string, unknown> = { ...component.config };
    for (const field of component.fields) {
      const value = values[field.key] ?? "";
      if (field.type === "secret" && value === "") continue;
      config[field.key] = field.type === "number" ? Number(value) : field.type === "boolean" ? value === "true" : value;
    }
    setStatus("Saving…");
    await onSaveConfig(config);
    setStatus("Saved");
  }

  return (
    <div className="every-kind-page space-y-4 p-4">
      <header className="space-y-1">
        <h1 className="text-lg font-semibold">Every Kind</h1>
        <p className="text-sm text-muted-foreground">
          {component.kind} · {component.id} {component.version} · {component.instanceId}
        </p>
      </header>
      {component.fields.length > 0 && (
        <form className="every-kind-config space-y-3" onSubmit={save}>
          {component.fields.map((field) => (
            <label key={field.key} className="block space-y-1">
              <span className="text-sm font-medium">{field.key}</span>
              <input
                className="w-full rounded border bg-background px-2 py-1"
                type={field.type === "secret" ? "password" : field.type === "number" ? "number" : "text"}
                placeholder={field.type === "secret" ? (component.config[field.key] ? "set" : "not set") : field.env ? `$${field.env}` : ""}
                value={values[field.key] ?? ""}
                onChange={(event) => setValues({ ...values, [field.key]: event.target.value })}
              />
              {field.description && <span className="text-xs text-muted-foreground">{field.description}</span>}
            </label>
          ))}
          <button className="rounded bg-primary px-3 py-1 text-primary-foreground" type="submit" disabled={!onSaveConfig}>
            Save
          </button>
          {status && <span className="ml-2 text-sm text-muted-foreground">{status}</span>}
        </form>
      )}
      {data !== undefined && (
        <pre className="every-kind-data overflow-auto rounded border p-2 text-xs">{JSON.stringify(data, null, 2)}</pre>
      )}
    </div>
  );
}

