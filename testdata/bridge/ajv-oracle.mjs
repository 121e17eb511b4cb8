// Real Ajv, configured as the AgentOS ToolExecutor configures it, on a table of schema and
// argument pairs: for plaios's test that `mcp serve` prepares arguments exactly as Ajv does.
//   node ajv-oracle.mjs <table.json>    → one JSON line: [{valid, errors: ["/x must …"], data}]
// Each pair gets a fresh copy of its arguments; the schema is compiled once per pair by one
// Ajv instance, as the executor's single instance would.
import fs from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true });
addFormats(ajv);
const table = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = table.map(({ schema, args }) => {
  const data = structuredClone(args);
  try {
    const validate = ajv.compile(schema);
    const valid = validate(data);
    const errors = valid ? [] : validate.errors.map((e) => (e.instancePath ? `${e.instancePath} ${e.message}` : e.message));
    return { valid, errors, data };
  } catch (err) {
    return { valid: false, errors: [`compile: ${err.message}`], data };
  }
});
process.stdout.write(JSON.stringify(out) + '\n');
