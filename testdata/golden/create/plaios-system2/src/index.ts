// P System2: one class per interface of agent-os.package.yaml. The host finds each by its
// className through this entry and constructs it with `new Class(options)`.
export { PSystem2System2 } from "./system2.js";
