// Oracle for internal/schema: answers, for a JSON array of cases read from stdin, what Ajv does
// when it is configured exactly as @framers/agentos 0.9.164's ToolExecutor configures it
// (dist/core/tools/ToolExecutor.js: `new Ajv({ allErrors: true, coerceTypes: true,
// useDefaults: true })` then `addFormats(ajv)`). Every case gets a fresh Ajv instance, as a
// schema gets when it is the first one the executor compiles.
//
// Input: [{"op": "compile"|"prepare"|"validate", "schema": …, "args": …}, …], where JSON
// values that JSON cannot spell are written as {"$js": "undefined"|"Infinity"|"-Infinity"|"NaN"}.
// Output: {"versions": {"node", "ajv", "ajvFormats"}, "answers": [an answer per case]}:
//   compile:  {"ok": bool, "error": message, "logs": [warnings]}
//   prepare:  {"ok": bool, "error": …, "valid": bool, "data": coerced args, "errors": [Ajv errors]}
//   validate: the same, with an Ajv that neither coerces nor fills defaults.
// The tools are loaded from the folder named by PLAIOS_NODE_MODULES.
"use strict";
const path = require("path");
const nm = process.env.PLAIOS_NODE_MODULES;
if (!nm) throw new Error("PLAIOS_NODE_MODULES is not set");
const Ajv = require(path.join(nm, "ajv"));
const addFormats = require(path.join(nm, "ajv-formats"));

const logs = [];
console.warn = (...a) => logs.push(a.map(String).join(" "));
console.error = (...a) => logs.push(a.map(String).join(" "));
console.log = (...a) => logs.push(a.map(String).join(" "));

function revive(v) {
  if (Array.isArray(v)) return v.map(revive);
  if (v && typeof v === "object") {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === "$js") {
      switch (v.$js) {
        case "undefined": return undefined;
        case "Infinity": return Infinity;
        case "-Infinity": return -Infinity;
        case "NaN": return NaN;
      }
    }
    // As JSON.parse builds objects: "__proto__" is an own property like any other key.
    const o = {};
    for (const k of keys) Object.defineProperty(o, k, { value: revive(v[k]), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return v;
}

// encode writes what JSON cannot: holes and undefined, infinities, NaN, functions.
function encode(v) {
  if (v === undefined) return { $js: "undefined" };
  if (typeof v === "number" && !isFinite(v)) return { $js: String(v) };
  if (typeof v === "function") return { $js: "function" };
  if (Array.isArray(v)) {
    const out = [];
    for (let i = 0; i < v.length; i++) out.push(i in v ? encode(v[i]) : { $js: "undefined" });
    return out;
  }
  if (v && typeof v === "object") {
    const o = {};
    for (const k of Object.keys(v)) Object.defineProperty(o, k, { value: encode(v[k]), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return v;
}

function newAjv(op) {
  const ajv = op === "validate" ? new Ajv({ allErrors: true }) : new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true });
  addFormats(ajv);
  return ajv;
}

function answer(c) {
  logs.length = 0;
  const ajv = newAjv(c.op);
  const schema = revive(c.schema);
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch (e) {
    return { ok: false, error: String(e && e.message), logs: logs.slice() };
  }
  if (c.op === "compile") return { ok: true, logs: logs.slice() };
  const data = revive(c.args);
  let valid;
  try {
    valid = validate(data);
  } catch (e) {
    return { ok: true, threw: String(e && e.message), logs: logs.slice() };
  }
  if (valid && typeof valid.then === "function") {
    // An $async schema: the executor only sees a (truthy) promise; report what it settles to.
    const snapshot = encode(data);
    return valid.then(
      () => ({ ok: true, async: true, valid: true, data: snapshot, errors: [], logs: [] }),
      (e) => ({ ok: true, async: true, valid: false, data: snapshot, errors: mapErrors(e.errors || []), logs: [] })
    );
  }
  return { ok: true, valid, data: encode(data), errors: mapErrors(validate.errors || []), logs: logs.slice() };
}

function mapErrors(errs) {
  return errs.map((e) => ({
    instancePath: e.instancePath,
    keyword: e.keyword,
    message: e.message,
    schemaPath: e.schemaPath,
    params: encode(e.params),
    propertyName: e.propertyName,
  }));
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const cases = JSON.parse(input);
  Promise.all(cases.map(answer)).then((answers) => {
    const versions = {
      node: process.version,
      ajv: require(path.join(nm, "ajv", "package.json")).version,
      ajvFormats: require(path.join(nm, "ajv-formats", "package.json")).version,
    };
    process.stdout.write(JSON.stringify({ versions, answers }));
  });
});
