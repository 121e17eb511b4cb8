// Package schema reads JSON Schema draft-07 as the agent runtimes' executors read it. It is
// used by validate (schemas standing in files, with positions from internal/jsonpos), by guard
// (every tool schema of a loaded pack, as plain values) and by mcp serve (preparing arguments
// before a tool runs). It offers three things:
//
//   - Check and CheckFile: findings with the rule IDs of RULES.md "Tool schemas"
//     (schema-invalid, schema-type-unknown, schema-draft, schema-meta-id, schema-async,
//     schema-format-unknown, schema-keyword-unknown, schema-default-invalid, schema-not-strict),
//     each marked Fatal when the AgentOS executor cannot compile the schema because of it;
//     ToolName and DuplicateNames for tool-name-invalid (PLAIOS and MCP rules).
//   - Compile: does the AgentOS executor compile the schema, and if not, where and why (the
//     CompileError carries Ajv's own message).
//   - Schema.Prepare and Schema.Validate: what the executor does to a call's arguments —
//     coerce, fill defaults, validate with every error, in Ajv's words.
//
// # What the AgentOS executor does (read from @framers/agentos 0.9.164)
//
// dist/core/tools/ToolExecutor.js builds one Ajv for all tools:
//
//	this.ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true });
//	addFormats(this.ajv);
//
// with ajv ^8.17.1 and ajv-formats ^3.0.1 (the tests pin ajv 8.20.0 and ajv-formats 3.0.1).
// It calls this.ajv.compile(tool.inputSchema) on every call (Ajv caches by object) and
// validates the parsed arguments in place; the output is compiled and validated the same way
// after the tool ran. Everything else is Ajv 8's default, and those defaults matter more than
// the three options: strict mode is on (strictSchema: true), so an unknown keyword, an unknown
// format, a default Ajv would ignore (at the root, or under anyOf, oneOf, not, if, contains or
// propertyNames), "if" without "then"/"else", "then"/"else" without "if", "additionalItems"
// without a tuple, and a patternProperties pattern that matches a declared property all make
// compile throw; strictTypes and strictTuples only log; the schema is first validated against
// Ajv's copy of the draft-07 meta-schema (compiled without coercion, defaults or formats);
// patterns are `new RegExp(p, "u")`; references are inlined when their target holds no $ref;
// ajv-formats adds its 26 formats in "full" mode and the formatMaximum/formatMinimum/
// formatExclusiveMaximum/formatExclusiveMinimum keywords. coerceTypes is true, not "array":
// scalars are coerced (to string, number, integer, boolean and null, in the order the type
// array lists them), arrays and objects never are. In 0.9.164 a schema that does not compile
// makes the call fail with TOOL_EXECUTION_FAILED (the ToolOrchestrator catches what
// ToolExecutor throws); the AgentOS guide calls it SYS_CONFIGURATION_ERROR. An `$async`
// schema compiles, but the executor tests the returned promise, which is always truthy: the
// arguments are never rejected.
//
// The keywords this package knows are exactly Ajv's (draft-07's, plus $defs, $async, nullable,
// deprecated, readOnly, writeOnly, contentMediaType, contentEncoding, contentSchema, $vocabulary
// and ajv-formats' four). Everything else — "example", "x-…" vendor extensions, OpenAPI's
// "discriminator", draft 2019-09/2020-12 keywords — is an unknown keyword: fatal where Ajv's
// compilation reaches it, a warning where it does not (an unreferenced definition, an anyOf
// branch after an always-valid one). Other runtimes ignore unknown keywords; AgentOS does not.
//
// # Why coercion, defaults and validation are written here
//
// santhosh-tekuri/jsonschema, the draft-07 library of this module, validates but does not
// coerce or fill defaults, and Ajv's coercion cannot be done as a pass before validation:
// Ajv coerces each value when its subschema runs, so a failed anyOf branch leaves its
// coercions behind, an anyOf with an always-valid branch runs no branch at all, defaults are
// written only for "properties" and tuple "items" (after the untyped keywords such as anyOf,
// before "required"), a default is itself coerced and validated, inherited properties such as
// "toString" count as present, a value at the top is never replaced, and coercing a property
// name throws. So this package compiles a schema the way Ajv's code generation walks it (same
// keyword order, same inline-or-call decision for $ref, same strict checks, same error paths
// and messages) and interprets the result. The library is used only by the tests, as a second
// opinion: a test compares Validate with it on random schemas. It stays out of the binary
// because its package init compiles the meta-schemas of five drafts, 8 to 40 ms at every start
// of plaios, more than plaios's whole startup budget; Check's own walk covers what it added (a
// "$ref" or a pattern that breaks any validator where Ajv's compilation never reaches). Patterns
// use
// a JavaScript regular expression engine written here (ECMAScript 2023 syntax with V8's error
// messages, a backtracking matcher), because Go's RE2 has other syntax and meanings.
//
// The tests run the pinned Ajv through testdata/oracle.js on three tables (schemas that compile
// or not, schema and argument pairs, regular expressions) and require the same answers, messages
// included. Known limits: Unicode properties Go has no data for (Script_Extensions, emoji
// properties, a few derived ones) are approximated; a regular expression needing more than two
// million backtracking steps is taken as not matching; fast-uri's URI normalisations beyond
// case and dot segments are not reproduced; formatMaximum and its kin compare times and
// date-times with the RFC 3339 forms of JavaScript's Date parsing only.
package schema
